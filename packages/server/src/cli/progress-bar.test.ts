import { describe, expect, it } from 'vitest';
import { createProgressBar, formatMegabytes } from './progress-bar.js';

const recorder = () => {
  const writes: string[] = [];
  return { writes, stream: { write: (text: string) => writes.push(text) } };
};

describe('createProgressBar()', () => {
  it('draws nothing when disabled (stderr is not a terminal, or the file is small)', () => {
    const { writes, stream } = recorder();
    const bar = createProgressBar({ stream, enabled: false, total: 100, label: 'f' });
    bar.update(50);
    bar.status('writing');
    bar.finish();
    expect(writes).toEqual([]);
  });

  it('draws the bar in place with percent and amounts, at most once per interval, and always at 100%', () => {
    let clock = 0;
    const { writes, stream } = recorder();
    const bar = createProgressBar({
      stream,
      enabled: true,
      total: 200,
      label: 'Reading f.csv',
      width: 10,
      now: () => clock,
      formatAmount: (amount) => `${amount} B`,
    });
    bar.update(50);
    clock = 50;
    bar.update(60); // too soon: skipped
    clock = 150;
    bar.update(100);
    clock = 160;
    bar.update(200); // complete: drawn at once
    expect(writes).toEqual([
      '\r\u001b[2KReading f.csv [███░░░░░░░]  25%  50 B / 200 B',
      '\r\u001b[2KReading f.csv [█████░░░░░]  50%  100 B / 200 B',
      '\r\u001b[2KReading f.csv [██████████] 100%  200 B / 200 B',
    ]);
    bar.status('writing');
    bar.finish();
    expect(writes.slice(3)).toEqual(['\r\u001b[2KReading f.csv: writing', '\r\u001b[2K']);
  });

  it('clamps past the total and clears only what it drew', () => {
    const { writes, stream } = recorder();
    const bar = createProgressBar({ stream, enabled: true, total: 10, label: 'x', width: 4, now: () => 0 });
    bar.finish();
    expect(writes).toEqual([]);
    bar.update(15);
    expect(writes[0]).toContain('[████] 100%');
  });
});

describe('formatMegabytes()', () => {
  it('shows bytes as MB with one decimal', () => {
    expect(formatMegabytes(92_140_000)).toBe('92.1 MB');
  });
});
