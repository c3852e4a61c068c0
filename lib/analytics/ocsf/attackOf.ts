import { ATTACK_TACTICS, ATTACK_TECHNIQUES } from './attackIds.ts';

/** One MITRE ATT&CK entry as OCSF's `attack` object. */
export interface OcsfAttack {
  tactic?: { uid: string; name: string };
  technique: { uid: string; name?: string };
  sub_technique?: { uid: string; name: string };
}

/** A rule's ATT&CK mapping as its yml states it (`attack: {tactic, techniques}`). */
export interface RuleAttack {
  tactic: string;
  techniques: readonly string[];
}

/**
 * An ATT&CK id as OCSF splits it: `T1583.001` is the sub-technique `T1583.001` of the technique
 * `T1583`; `T1572` is a technique. Names come from the one table (`attackIds.ts`); the tactic is the
 * rule's own (a technique can belong to several tactics); an id the table does not list keeps its uid alone.
 */
export function attackOf(id: string, tacticUid?: string): OcsfAttack {
  const [technique = id, sub] = id.split('.');
  const techniqueName = ATTACK_TECHNIQUES[technique]?.name;
  const attack: OcsfAttack = {
    technique: techniqueName === undefined ? { uid: technique } : { uid: technique, name: techniqueName },
  };
  const tactic = tacticUid ?? ATTACK_TECHNIQUES[id]?.tactics[0];
  const tacticName = tactic === undefined ? undefined : ATTACK_TACTICS[tactic];
  if (tactic !== undefined && tacticName !== undefined) attack.tactic = { uid: tactic, name: tacticName };
  if (sub !== undefined) {
    const full = ATTACK_TECHNIQUES[id]?.name;
    attack.sub_technique = { uid: id, name: full === undefined ? id : (full.split(': ')[1] ?? full) };
  }
  return attack;
}

/**
 * A rule's whole ATT&CK mapping as OCSF `attacks`: each technique under the rule's tactic where it belongs
 * to it, else under its own first tactic (`T1583.001` stays Resource Development in a Command and Control rule).
 */
export const attacksOf = (a: RuleAttack): OcsfAttack[] =>
  a.techniques.map((t) =>
    attackOf(t, ATTACK_TECHNIQUES[t]?.tactics.includes(a.tactic) ? a.tactic : undefined),
  );
