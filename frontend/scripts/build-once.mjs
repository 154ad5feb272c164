// `npm run build:once`: `npm run build`, unless frontend/ holds exactly the sources of the last build this script made;
// then that build's dist/ is put back instead (a copy, in well under a second).
//
// The server's browser tests build the UI through it (quarkus.quinoa.package-manager-command.build in UiTestProfile):
// Quinoa builds the UI at every Quarkus build of a test profile that serves it, and moves dist/ away each time, so a
// test run with several UI profiles built the same sources several times. The key is a SHA-256 of every file under
// frontend/ (paths and bytes; not node_modules/ or dist/), the installed packages (node_modules/.package-lock.json),
// node's version and the build's MODE and NODE_ENV: any change of the sources builds again.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ui = fileURLToPath(new URL('..', import.meta.url));
const cache = join(ui, 'node_modules', '.cache', 'crashlab-build-once');
const keyFile = join(cache, 'key');
const cachedDist = join(cache, 'dist');
const dist = join(ui, 'dist');

function sourceFiles(dir, prefix, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || rel === 'dist') continue;
      sourceFiles(join(dir, entry.name), rel + '/', out);
    } else if (entry.isFile()) {
      out.push(rel);
    }
  }
  return out;
}

function key() {
  const hash = createHash('sha256');
  hash.update(`node ${process.version}\0MODE ${process.env.MODE ?? ''}\0NODE_ENV ${process.env.NODE_ENV ?? ''}\0`);
  const installed = join(ui, 'node_modules', '.package-lock.json');
  hash.update(existsSync(installed) ? readFileSync(installed) : 'no node_modules/.package-lock.json');
  for (const rel of sourceFiles(ui, '', []).sort()) {
    hash.update(`\0${rel}\0`);
    hash.update(readFileSync(join(ui, rel)));
  }
  return hash.digest('hex');
}

const wanted = key();
if (existsSync(keyFile) && existsSync(cachedDist) && readFileSync(keyFile, 'utf8') === wanted) {
  rmSync(dist, { recursive: true, force: true });
  cpSync(cachedDist, dist, { recursive: true });
  console.log(`build-once: frontend/ unchanged since the last build (${wanted.slice(0, 12)}): its dist/ reused`);
} else {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ui, stdio: 'inherit' });
  if (build.status !== 0) {
    process.exit(build.status ?? 1);
  }
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  cpSync(dist, cachedDist, { recursive: true });
  writeFileSync(keyFile, wanted); // last: a build cut short leaves no key
  console.log(`build-once: built frontend/ (${wanted.slice(0, 12)}) and kept a copy of dist/`);
}
