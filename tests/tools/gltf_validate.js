// Runs the Khronos glTF validator (npm package gltf-validator) on one .glb/.gltf file and
// prints its report's issue counts and messages as JSON on stdout. Usage:
//   node gltf_validate.js VALIDATOR_DIR FILE
// VALIDATOR_DIR is the folder holding node_modules/gltf-validator.
const fs = require('fs');
const path = require('path');
const [dir, file] = process.argv.slice(2);
const validator = require(path.join(dir, 'node_modules', 'gltf-validator'));
const data = fs.readFileSync(file);
validator
  .validateBytes(new Uint8Array(data), {
    uri: path.basename(file),
    maxIssues: 100,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        fs.readFile(path.join(path.dirname(file), decodeURIComponent(uri)), (err, d) =>
          err ? reject(err.toString()) : resolve(new Uint8Array(d)));
      }),
  })
  .then((report) => {
    const i = report.issues;
    console.log(JSON.stringify({
      errors: i.numErrors, warnings: i.numWarnings, infos: i.numInfos, hints: i.numHints,
      messages: i.messages.map((m) => `${m.severity} ${m.code} ${m.pointer || ''}: ${m.message}`),
      version: report.validatorVersion,
    }));
  })
  .catch((e) => { console.error(String(e)); process.exit(2); });
