// Preloaded (`node -r`) into every process the benchmark times from outside: when the process
// exits it writes its peak resident memory (VmHWM, MB) to the file named by BENCH_PEAK_FILE.
import fs from 'node:fs';

process.on('exit', () => {
  const file = process.env.BENCH_PEAK_FILE;
  if (!file) return;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    fs.writeFileSync(file, String(match ? Number(match[1]) / 1024 : process.resourceUsage().maxRSS / 1024));
  } catch {
    // the figure is then missing, not wrong
  }
});
