import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Programs some tests run that neither `npm ci` installs nor every machine has. Where one is
 * missing, those tests are skipped and say how to get it; where PROMPTLINE_REQUIRE_TOOLS=1 (.ci/run
 * sets it, having installed them from Debian's packages), a missing one fails them instead, so CI
 * never skips them unnoticed.
 */
function missing(reason: string): string {
  if (process.env.PROMPTLINE_REQUIRE_TOOLS === '1') throw new Error(reason);
  return reason;
}

/**
 * null when `command --version` runs (found on the PATH and executable, not merely a name that a
 * folder could carry), else why not and how to install it.
 */
export function toolMissing(command: string, debianPackage: string): string | null {
  const probe = spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 30_000 });
  return probe.status === 0 ? null : missing(`${command} is not installed: apt-get install ${debianPackage}`);
}

/** null when `file` is an executable file (a folder or a plain file of that name is not), else why not. */
export function executableMissing(file: string, howToInstall: string): string | null {
  try {
    if (fs.statSync(file).isFile()) {
      fs.accessSync(file, fs.constants.X_OK);
      return null;
    }
  } catch {
    // Missing, or not executable: said below.
  }
  return missing(`${file} not found (or not an executable file): ${howToInstall}`);
}
