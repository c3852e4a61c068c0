/** The variable naming the test run's folder (`test/support/testRunFolder.ts`, removed when the run ends). */
export const TEST_RUN_FOLDER = 'TUNNEL_ARCHIVER_TEST_RUN_FOLDER';
