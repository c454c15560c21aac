import { loadConfig, type Config } from '../config.js';

/** The configuration from the environment, or each of its errors on stderr and exit 1. */
export function configOrExit(): Config {
  const { config, errors } = loadConfig(process.env);
  if (config === null) {
    for (const error of errors) process.stderr.write(`promptline: ${error}\n`);
    process.exit(1);
  }
  return config;
}
