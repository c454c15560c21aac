import { loadConfig } from './config.js';
import { serve } from './serve.js';

const { config, errors } = loadConfig(process.env);
if (config === null) {
  for (const error of errors) process.stderr.write(`promptline: ${error}\n`);
  process.exit(1);
}
await serve(config);
