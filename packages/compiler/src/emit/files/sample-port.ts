/** The port every sample command and configuration of a package listens on (run-commands, workerd, deploy files). */
export const SAMPLE_PORT = 3000;
