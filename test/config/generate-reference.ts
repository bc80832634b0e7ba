/**
 * `npm run config:generate`: writes what the schema renders (src/config/reference.ts) into config/extender.yaml, its
 * byte-for-byte copy deploy/base/extender.yaml, and docs/configuration-reference.md. The overlays under
 * deploy/overlays/ carry their own values and are not rewritten; test/deploy/config-copy.test.ts names a key they lack.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { REFERENCE_DOCUMENT, renderExtenderYaml, renderReferenceDocument } from '../../src/config/reference.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const yaml = renderExtenderYaml();
for (const file of ['config/extender.yaml', 'deploy/base/extender.yaml']) writeFileSync(join(ROOT, file), yaml);
const reference = join(ROOT, REFERENCE_DOCUMENT);
mkdirSync(dirname(reference), { recursive: true });
writeFileSync(reference, renderReferenceDocument());
console.log(`wrote config/extender.yaml, deploy/base/extender.yaml and ${REFERENCE_DOCUMENT}`);
