// The server's own code as an oracle for the Python tests. Reads a JSON array of cases on stdin,
// writes a JSON array of answers on stdout. Usage: node oracle.mjs <dist directory>
// - {kind: "render", templates, inputs_json, max_bytes, max_steps}: compiles each template with the
//   built server's compileTemplate and renders them as serving.ts's renderVersion does (one budget
//   for all, missing names collected across them, the budget checked first), the inputs parsed by
//   the server's own Python-compatible JSON decoder (so NaN and huge integers arrive as they would);
// - {kind: "hash", seed, id}: the server's hashV2 and fnv1a32(seed + id);
// - {kind: "value", json}: String(value) and JSON.stringify(value) of a value decoded as above;
// - {kind: "bound", json}: whether the server sends a 422's detail items (decoded as above) unchanged;
// - {kind: "pattern", pattern, texts}: a typed variable's pattern compiled as the server compiles it,
//   and whether it matches each text (or why the server refuses it).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = path.resolve(process.argv[2]);
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
const { compileTemplate, renderTemplate, RenderBudget, toWireNodes } = await load('src/modules/prompts/template.js');
const { decodePythonJson } = await load('src/http/fastapi/pythonJson.js');
const { fnv1a32, hashV2 } = await load('src/modules/experiments/assignment.js');
const { boundDetail } = await load('src/http/fastapi/errorBounds.js');
const { compilePattern } = await load('src/modules/prompts/variableDeclarations.js');

function decode(text) {
  const decoded = decodePythonJson(text);
  if (!decoded.ok) throw new Error(`not JSON: ${decoded.msg}`);
  return decoded.value;
}

const cases = JSON.parse(readFileSync(0, 'utf8'));
const answers = cases.map((c) => {
  if (c.kind === 'hash') return { hash: hashV2(c.seed, c.id), fnv: fnv1a32(c.seed + c.id) };
  if (c.kind === 'value') {
    const value = decode(c.json);
    return { string: typeof value === 'object' && value !== null ? null : String(value), json: JSON.stringify(value) };
  }
  if (c.kind === 'pattern') {
    const re = compilePattern(c.pattern);
    return typeof re === 'string' ? { refused: re } : { refused: null, matches: c.texts.map((text) => re.test(text)) };
  }
  if (c.kind === 'bound') {
    const items = decode(c.json);
    return { unchanged: JSON.stringify(boundDetail(items)) === JSON.stringify(items) };
  }
  return render(c);
});

function render({ templates, inputs_json, max_bytes, max_steps }) {
  let compiled;
  try {
    compiled = templates.map((source) => compileTemplate(source));
  } catch (error) {
    return { error: error.message };
  }
  const inputs = decode(inputs_json);
  const budget = new RenderBudget({ maxBytes: max_bytes, maxSteps: max_steps });
  const missing = new Set();
  const contents = compiled.map((template) => {
    if (budget.exceeded !== null) return '';
    const result = renderTemplate(template, inputs, budget);
    if (result.ok) return result.text;
    if ('missing' in result) for (const name of result.missing) missing.add(name);
    return '';
  });
  return { wire: compiled.map((t) => toWireNodes(t.nodes)), contents, exceeded: budget.exceeded, missing: [...missing] };
}
process.stdout.write(JSON.stringify(answers));
