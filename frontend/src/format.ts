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

const PLURAL_RULES = new Intl.PluralRules('en');

/**
 * The word for a count: {@code one} for exactly one, else {@code many} ("is"/"are", "needs"/"need"). The only place
 * the UI decides between singular and plural; FrontendPluralsTest fails on a hand-made choice elsewhere.
 */
export function pluralForm(n: number, one: string, many = `${one}s`): string {
  return PLURAL_RULES.select(n) === 'one' ? one : many;
}

/** A count with its noun: "1 crash", "1,204 crashes" (the number grouped as the UI writes numbers). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${pluralForm(n, one, many)}`;
}

// Names of the exit statuses people search for. Sources: NTSTATUS values from Microsoft's [MS-ERREF] "2.3.1
// NTSTATUS Values" (learn.microsoft.com/openspecs/windows_protocols/ms-erref); signal numbers (x86/ARM Linux) from
// signal(7) (man7.org/linux/man-pages/man7/signal.7.html), and the shell's 128 + n exit status from bash(1), "EXIT
// STATUS". The server decodes the same table (crashlab-core ExitCodes); this one only names facet values.
const NTSTATUS: Record<string, string> = {
  '0xC0000005': 'STATUS_ACCESS_VIOLATION',
  '0xC0000006': 'STATUS_IN_PAGE_ERROR',
  '0xC0000017': 'STATUS_NO_MEMORY',
  '0xC000001D': 'STATUS_ILLEGAL_INSTRUCTION',
  '0xC0000094': 'STATUS_INTEGER_DIVIDE_BY_ZERO',
  '0xC00000FD': 'STATUS_STACK_OVERFLOW',
  '0xC000012D': 'STATUS_COMMITMENT_LIMIT',
  '0xC0000135': 'STATUS_DLL_NOT_FOUND',
  '0xC0000139': 'STATUS_ENTRYPOINT_NOT_FOUND',
  '0xC000013A': 'STATUS_CONTROL_C_EXIT',
  '0xC0000142': 'STATUS_DLL_INIT_FAILED',
  '0xC0000374': 'STATUS_HEAP_CORRUPTION',
  '0xC0000409': 'STATUS_STACK_BUFFER_OVERRUN',
  '0xC0000417': 'STATUS_INVALID_CRUNTIME_PARAMETER',
  '0xC0000420': 'STATUS_ASSERTION_FAILURE',
  '0xE06D7363': 'MSVC C++ exception',
  '0x80000003': 'STATUS_BREAKPOINT',
};
const SIGNALS: Record<number, string> = {
  1: 'SIGHUP', 2: 'SIGINT', 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE', 9: 'SIGKILL', 11: 'SIGSEGV', 13: 'SIGPIPE', 15: 'SIGTERM',
};

/**
 * An exit status as people search for it, named: "0xc0000409" and "-1073740791" -> "0xC0000409
 * STATUS_STACK_BUFFER_OVERRUN", "sigabrt" -> "SIGABRT", "134" -> "134 (128 + SIGABRT)". Other values as given.
 */
export function exitLabel(value: string): string {
  const v = value.trim();
  if (/^sig[a-z]+$/i.test(v)) return v.toUpperCase();
  let hex: string | null = null;
  if (/^0x[0-9a-f]{1,8}$/i.test(v)) hex = `0x${v.slice(2).toUpperCase().padStart(8, '0')}`;
  else if (/^-?\d{1,10}$/.test(v)) {
    const n = Number(v);
    if (n < -255 || n > 0x7fffffff) hex = `0x${(n >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;
    else if (n > 128 && n < 160 && SIGNALS[n - 128]) return `${n} (128 + ${SIGNALS[n - 128]})`;
    else if (n < 0 && SIGNALS[-n]) return `${n} (${SIGNALS[-n]})`;
  }
  if (hex) return NTSTATUS[hex] ? `${hex} ${NTSTATUS[hex]}` : hex;
  return v;
}
