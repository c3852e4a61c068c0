/**
 * The MITRE ATT&CK (Enterprise) tactics and techniques a rule may name, each technique with the
 * tactics it belongs to: a rule's `attack` is checked against this table when it is loaded.
 */
export const ATTACK_TACTICS: Readonly<Record<string, string>> = {
  TA0001: 'Initial Access',
  TA0003: 'Persistence',
  TA0004: 'Privilege Escalation',
  TA0005: 'Defense Evasion',
  TA0006: 'Credential Access',
  TA0008: 'Lateral Movement',
  TA0010: 'Exfiltration',
  TA0011: 'Command and Control',
  TA0042: 'Resource Development',
};

export const ATTACK_TECHNIQUES: Readonly<Record<string, { name: string; tactics: readonly string[] }>> = {
  T1078: { name: 'Valid Accounts', tactics: ['TA0001', 'TA0003', 'TA0004', 'TA0005'] },
  T1090: { name: 'Proxy', tactics: ['TA0011'] },
  T1095: { name: 'Non-Application Layer Protocol', tactics: ['TA0011'] },
  T1133: { name: 'External Remote Services', tactics: ['TA0001', 'TA0003'] },
  T1219: { name: 'Remote Access Software', tactics: ['TA0011'] },
  T1528: { name: 'Steal Application Access Token', tactics: ['TA0006'] },
  T1550: { name: 'Use Alternate Authentication Material', tactics: ['TA0005', 'TA0008'] },
  T1567: { name: 'Exfiltration Over Web Service', tactics: ['TA0010'] },
  T1572: { name: 'Protocol Tunneling', tactics: ['TA0011'] },
  T1583: { name: 'Acquire Infrastructure', tactics: ['TA0042'] },
  'T1583.001': { name: 'Acquire Infrastructure: Domains', tactics: ['TA0042'] },
};

/** A technique's page on attack.mitre.org (`T1583.001` → `T1583/001`). */
export const attackUrl = (id: string) =>
  `https://attack.mitre.org/${id.startsWith('TA') ? 'tactics' : 'techniques'}/${id.replace('.', '/')}/`;
