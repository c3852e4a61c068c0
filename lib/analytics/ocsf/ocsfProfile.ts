/**
 * What an export targets: the OCSF release and the session class. The archive's own exports and views
 * use OCSF 1.8.0 (sessions as Tunnel Activity 4014); Amazon Security Lake validates custom sources
 * against OCSF 1.1.0, where Tunnel Activity does not exist, so its sessions are Network Activity 4001.
 */
export interface OcsfProfile {
  version: '1.8.0' | '1.1.0';
  sessionClass: { uid: 4014 | 4001; name: string; category_uid: 4 };
}

export const OCSF_1_8: OcsfProfile = {
  version: '1.8.0',
  sessionClass: { uid: 4014, name: 'Tunnel Activity', category_uid: 4 },
};

export const OCSF_1_1: OcsfProfile = {
  version: '1.1.0',
  sessionClass: { uid: 4001, name: 'Network Activity', category_uid: 4 },
};

/** Detection Finding, in both releases. */
export const DETECTION_FINDING = { uid: 2004, name: 'Detection Finding', category_uid: 2 } as const;

/** The product that logs every event (OCSF `metadata.loggers`, or the product of a finding). */
export const LOGGING_PRODUCT = { name: 'tunnel-archiver', vendor_name: 'tunnel-archiver' } as const;
/** The product the sessions come from (OCSF `metadata.product` of a session event). */
export const SOURCE_PRODUCT = { name: 'Pinggy', vendor_name: 'Pinggy' } as const;

/** OCSF severity_id per rule severity: 1 Informational, 2 Low, 3 Medium, 4 High, 5 Critical. */
export const OCSF_SEVERITY_ID = { informational: 1, low: 2, medium: 3, high: 4, critical: 5 } as const;

/** `metadata.uid` of a session's Open or Close event: stable across revisions (findings link to it). */
export const SESSION_EVENT_UID_SQL = (sessionId: string, activity: 'open' | 'close') =>
  `${sessionId} || ':${activity}'`;
