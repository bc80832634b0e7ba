/**
 * `npm run config:generate`: writes what the schema renders (src/config/reference.ts) into config/extender.yaml, its
 * byte-for-byte copy deploy/base/extender.yaml, and the reference tables of docs/configuration.md. The overlays under
 * deploy/overlays/ carry their own values and are not rewritten; test/deploy/config-copy.test.ts names a key they lack.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REFERENCE_DOCUMENT, renderExtenderYaml, withReferenceTable } from '../../src/config/reference.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const yaml = renderExtenderYaml();
for (const file of ['config/extender.yaml', 'deploy/base/extender.yaml']) writeFileSync(join(ROOT, file), yaml);
const documentPath = join(ROOT, REFERENCE_DOCUMENT);
writeFileSync(documentPath, withReferenceTable(readFileSync(documentPath, 'utf8')));
console.log(`wrote config/extender.yaml, deploy/base/extender.yaml and the tables of ${REFERENCE_DOCUMENT}`);
