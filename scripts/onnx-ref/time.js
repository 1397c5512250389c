// Times OUT_PREFIX.onnx (written by ref.py) with ONNX Runtime on every batch
// of OUT_PREFIX.batches.json, the way `holomem bench embed --speed-only`
// times the Go encoder: one thread, graph optimisation "all", one warm-up
// call, then calls for about a second (at least five), median wall and CPU
// milliseconds per text. Prints tab-separated lines: name, wall ms/text,
// CPU ms/text, calls; then "load" (session creation) and "peak RSS MB".
//
// Usage: node time.js OUT_PREFIX
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

async function main() {
  const [prefix] = process.argv.slice(2);
  if (!prefix) {
    console.error('usage: node time.js OUT_PREFIX');
    process.exit(2);
  }
  const { batches } = JSON.parse(fs.readFileSync(prefix + '.batches.json', 'utf8'));
  const t0 = performance.now(), c0 = cpuMs();
  const session = await ort.InferenceSession.create(prefix + '.onnx', {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const load = [performance.now() - t0, cpuMs() - c0];
  const lines = [];
  for (const b of batches) {
    const B = b.input_ids.length;
    const L = b.input_ids[0].length;
    const t = (rows) => new ort.Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [B, L]);
    const feeds = {
      input_ids: t(b.input_ids),
      attention_mask: t(b.attention_mask),
      token_type_ids: t(b.token_type_ids),
      position_ids: t(b.position_ids),
    };
    await session.run(feeds); // warm up
    const walls = [], cpus = [];
    const start = performance.now();
    while (performance.now() - start < 1000 || walls.length < 5) {
      const w = performance.now(), c = cpuMs();
      await session.run(feeds);
      walls.push((performance.now() - w) / B);
      cpus.push((cpuMs() - c) / B);
    }
    lines.push(`${b.name}\t${median(walls).toFixed(3)}\t${median(cpus).toFixed(3)}\t${walls.length}`);
  }
  lines.push(`load\t${load[0].toFixed(3)}\t${load[1].toFixed(3)}\t1`);
  const rss = process.resourceUsage().maxRSS / 1024; // kB -> MB
  lines.push(`peak RSS MB\t${rss.toFixed(1)}\t${rss.toFixed(1)}\t1`);
  console.log(lines.join('\n'));
}

main().catch((e) => { console.error(e); process.exit(1); });
