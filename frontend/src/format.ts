const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** 1234 -> "1.2 KiB"; binary units (1 KiB = 1024 bytes), as nvidia-smi counts. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = value < 10 ? 1 : 0;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

/** Mebibytes with one decimal, for the progress line ("3.4 of 12.0 MiB"). */
export function formatMB(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

const FULL = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const SHORT = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** An ISO instant in the viewer's local time zone. */
export function formatDateTime(iso: string, seconds = true): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return (seconds ? FULL : SHORT).format(d);
}

export function shortHash(hash: string, length = 12): string {
  return hash && hash.length > length ? `${hash.slice(0, length)}…` : hash;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
