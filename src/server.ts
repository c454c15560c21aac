import { loadConfig } from './config.js';
import { serve } from './serve.js';
import { describeStartupError } from './startupErrors.js';

const { config, errors } = loadConfig(process.env);
if (config === null) {
  for (const error of errors) process.stderr.write(`promptline: ${error}\n`);
  process.exit(1);
}
try {
  await serve(config);
} catch (error) {
  const line = describeStartupError(error, config);
  if (line === null) throw error;
  process.stderr.write(`promptline: ${line}\n`);
  process.exit(1);
}
