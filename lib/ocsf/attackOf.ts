/** One MITRE ATT&CK entry as OCSF's `attack` object. */
export interface OcsfAttack {
  tactic?: { uid: string; name: string };
  technique: { uid: string; name?: string };
  sub_technique?: { uid: string; name: string };
}

const TACTICS = {
  TA0001: 'Initial Access',
  TA0006: 'Credential Access',
  TA0011: 'Command and Control',
  TA0042: 'Resource Development',
} as const;

/** The techniques and sub-techniques the rules name (detections/*.yml `mitre`), with their tactic. */
export const ATTACK_TECHNIQUES: Record<string, { name: string; tactic: keyof typeof TACTICS }> = {
  T1078: { name: 'Valid Accounts', tactic: 'TA0001' },
  T1095: { name: 'Non-Application Layer Protocol', tactic: 'TA0011' },
  T1110: { name: 'Brute Force', tactic: 'TA0006' },
  T1572: { name: 'Protocol Tunneling', tactic: 'TA0011' },
  T1583: { name: 'Acquire Infrastructure', tactic: 'TA0042' },
  'T1583.001': { name: 'Domains', tactic: 'TA0042' },
};

/**
 * An ATT&CK id as OCSF splits it: `T1583.001` is the sub-technique `T1583.001` of the technique
 * `T1583`; `T1572` is a technique. The tactic comes from the table above; an id it does not list keeps
 * its uid alone (still a valid `attack`).
 */
export function attackOf(id: string): OcsfAttack {
  const [technique = id, sub] = id.split('.');
  const known = ATTACK_TECHNIQUES[technique];
  const tacticUid = ATTACK_TECHNIQUES[id]?.tactic ?? known?.tactic;
  const attack: OcsfAttack = {
    technique: known ? { uid: technique, name: known.name } : { uid: technique },
  };
  if (tacticUid !== undefined) attack.tactic = { uid: tacticUid, name: TACTICS[tacticUid] };
  if (sub !== undefined) attack.sub_technique = { uid: id, name: ATTACK_TECHNIQUES[id]?.name ?? id };
  return attack;
}
