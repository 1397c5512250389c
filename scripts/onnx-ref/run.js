// Runs OUT_PREFIX.onnx (written by ref.py) with ONNX Runtime on every batch of
// OUT_PREFIX.batches.json and writes MODEL_DIR/reference.json: the token-id
// sequences and the expected sentence vectors.
//
// Usage: node run.js OUT_PREFIX MODEL_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

async function main() {
  const [prefix, modelDir] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(prefix + '.onnx', {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 1,
  });
  const { batches } = JSON.parse(fs.readFileSync(prefix + '.batches.json', 'utf8'));
  const out = [];
  for (const b of batches) {
    const B = b.input_ids.length;
    const L = b.input_ids[0].length;
    const t = (rows) => new ort.Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [B, L]);
    const res = await session.run({
      input_ids: t(b.input_ids),
      attention_mask: t(b.attention_mask),
      token_type_ids: t(b.token_type_ids),
      position_ids: t(b.position_ids),
    });
    const e = res.sentence_embedding;
    const H = e.dims[1];
    const vectors = [];
    for (let i = 0; i < B; i++) vectors.push(Array.from(e.data.slice(i * H, (i + 1) * H)));
    out.push({ sequences: b.sequences, vectors });
  }
  const doc = {
    generator: 'scripts/onnx-ref (ref.py + run.js), onnxruntime-node ' + require('onnxruntime-node/package.json').version,
    batches: out,
  };
  fs.writeFileSync(path.join(modelDir, 'reference.json'), JSON.stringify(doc) + '\n');
  console.log(`wrote ${path.join(modelDir, 'reference.json')}: ${out.length} batches`);
}

main().catch((e) => { console.error(e); process.exit(1); });
