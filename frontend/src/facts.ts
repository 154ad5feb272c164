// Turning facts into words: a one-line summary per fact (small formatters for the kinds we know, a
// generic `key: value` line for the rest) and the bundle's environment at a glance. Kinds and their
// fields grow on the server as parsers are written, so every field is read defensively: a formatter
// that finds nothing it knows falls back to the generic line rather than showing an empty one.
import type { BundleFacts, Fact, SourceRef } from './api.ts';

type Fields = Record<string, unknown>;

/** A field as display text, or null when absent, empty, or not a scalar. */
function str(f: Fields, ...names: string[]): string | null {
  for (const name of names) {
    const v = f[name];
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return null;
}

function num(f: Fields, ...names: string[]): number | null {
  for (const name of names) {
    const v = f[name];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string' && v.trim() && Number.isFinite(Number(v))) return Number(v);
  }
  return null;
}

function join(parts: (string | null | undefined | false)[], sep = ' · '): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.length > 0).join(sep);
}

function clip(text: string, max = 220): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** 6144 -> "6.0 GiB"; 512 -> "512 MiB". */
export function formatMiB(mib: number): string {
  return mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib} MiB`;
}

function formatValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v.trim() ? v : null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    const parts = v.map(formatValue).filter((p): p is string => p !== null);
    return parts.length ? parts.join(', ') : null;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Fields)
      .map(([k, x]) => {
        const s = formatValue(x);
        return s === null ? null : `${k}=${s}`;
      })
      .filter((p): p is string => p !== null);
    return entries.length ? `{${entries.join(', ')}}` : null;
  }
  return null;
}

/** Every stated field but kind and sources, as `key: value` (false booleans are left out as noise). */
export function genericSummary(fact: Fact): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fact)) {
    if (key === 'kind' || key === 'sources' || value === false) continue;
    const s = formatValue(value);
    if (s !== null) parts.push(`${key}: ${s}`);
  }
  return parts.length ? clip(parts.join(' · '), 400) : fact.kind;
}

/** An exit status's code in the form people search for: hex for NTSTATUS-sized values, decimal otherwise. */
function exitCode(f: Fields): string | null {
  const hex = str(f, 'hex', 'hexCode', 'hexValue', 'ntstatusHex');
  if (hex) return /^0x/i.test(hex) ? `0x${hex.slice(2).toUpperCase()}` : hex;
  const code = num(f, 'code', 'exitCode', 'value', 'raw', 'rawValue', 'unsigned', 'signed');
  if (code === null) return str(f, 'raw', 'rawText', 'spelling');
  if (code < 0 || code > 0xffff) return `0x${(code >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;
  return String(code);
}

/** "0xC0000409 STATUS_STACK_BUFFER_OVERRUN" and its meaning, apart. */
function exitStatusParts(f: Fields): { head: string; meaning: string | null } | null {
  const code = exitCode(f);
  const name = str(f, 'name', 'symbol', 'statusName', 'ntstatus', 'signalName', 'signal');
  const meaning = str(f, 'meaning', 'description', 'explanation');
  // a signal reads by its name ("SIGABRT (signal 6)"): a bare 6 reads as a plain exit code
  const head = f.statusKind === 'SIGNAL' && name
    ? `${name}${code && code !== name ? ` (${Number(code) > 128 ? `exit ${code} = 128 + ${Number(code) - 128}` : `signal ${code.replace(/^-/, '')}`})` : ''}`
    : join([code, name && name !== code ? name : null], ' ');
  if (!head && !meaning) return null;
  return { head: head || 'unknown status', meaning };
}

/** "0xC0000409 STATUS_STACK_BUFFER_OVERRUN — the stack buffer overrun check failed". */
export function exitStatusText(f: Fields): string | null {
  const parts = exitStatusParts(f);
  return parts ? join([parts.head, parts.meaning], ' — ') : null;
}

function lastFrame(f: Fields): string | null {
  const frames = f.frames ?? f.stack;
  if (!Array.isArray(frames) || frames.length === 0) return null;
  const last = frames[frames.length - 1];
  if (!last || typeof last !== 'object') return typeof last === 'string' ? last : null;
  const fr = last as Fields;
  const file = str(fr, 'file', 'path', 'filename');
  const n = num(fr, 'line', 'lineNumber');
  const line = n !== null && n > 0 ? String(n) : null;
  const fn = str(fr, 'function', 'name', 'method');
  const where = join([file, line], ':');
  return where ? join([where, fn ? `in ${fn}` : null], ' ') : fn;
}

type Formatter = (f: Fields) => string | null;

const FORMATTERS: Record<string, Formatter> = {
  ExitStatus: exitStatusText,

  PythonException: (f) => {
    const type = str(f, 'type', 'exceptionType', 'className', 'name');
    const message = str(f, 'message', 'text');
    const head = join([type, message], ': ');
    const at = lastFrame(f);
    return head ? join([head, at ? `at ${at}` : null], ' — ') : null;
  },

  LogLine: (f) => {
    const sev = str(f, 'severity', 'level');
    const origin = str(f, 'origin', 'location', 'file');
    const text = str(f, 'message', 'text');
    return text ? join([sev ? `${sev.charAt(0)}${sev.slice(1).toLowerCase()}` : null, origin ? `${origin}:` : null, text], ' ') : null;
  },

  LibraryLoadFailure: (f) => {
    const lib = str(f, 'library', 'name', 'file', 'dll');
    const why = str(f, 'reason', 'error', 'detail', 'message');
    return join([lib ? `${lib} could not be loaded` : 'A library could not be loaded', why], ' — ');
  },

  StatusCode: (f) => {
    const name = str(f, 'name', 'status', 'code', 'symbol');
    const family = str(f, 'family', 'api', 'library');
    const meaning = str(f, 'meaning', 'description');
    return name ? join([join([name, family ? `(${family})` : null], ' '), meaning], ' — ') : null;
  },

  MemoryShortage: (f) => {
    const where = str(f, 'where');
    const requested = str(f, 'requested');
    const total = str(f, 'total');
    const free = str(f, 'free');
    const detail = str(f, 'detail');
    const head = where === 'gpu' ? 'GPU out of memory' : where === 'host' ? 'Host out of memory' : 'Out of memory';
    const parts = join([
      requested ? `tried to allocate ${requested}` : null,
      total ? `${total} total` : null,
      free ? `${free} free` : null,
      detail,
    ], ', ');
    return parts ? `${head}: ${parts}` : head;
  },

  GpuProcess: (f) => {
    const pid = str(f, 'pid');
    const name = str(f, 'processName', 'name', 'command');
    const mem = num(f, 'usedMemoryMiB', 'memoryMiB', 'memoryUsedMiB');
    const gpu = str(f, 'gpuIndex', 'gpu', 'busId');
    if (!pid && !name) return null;
    return join([join([pid ? `pid ${pid}` : null, name], ' '), mem !== null ? `${formatMiB(mem)}` : null, gpu ? `on GPU ${gpu}` : null]);
  },

  GpuLost: (f) => {
    const gpu = str(f, 'busId', 'gpu', 'index', 'device');
    const msg = str(f, 'message', 'reason', 'text');
    return gpu || msg ? join([gpu ? `GPU ${gpu} lost` : 'GPU lost', msg], ' — ') : null;
  },

  XidEvent: (f) => {
    const code = str(f, 'code', 'xid');
    const bus = str(f, 'busId', 'pci', 'device');
    const mnemonic = str(f, 'mnemonic');
    const meaning = str(f, 'meaning', 'description');
    const pid = str(f, 'pid');
    const text = str(f, 'text', 'detail', 'message');
    if (!code) return null;
    return join([
      join([`Xid ${code}`, mnemonic ? `(${mnemonic})` : null, bus ? `on ${bus}` : null, pid ? `pid ${pid}` : null], ' '),
      meaning ?? text,
    ], ' — ');
  },

  HostOomKill: (f) => {
    const pid = str(f, 'pid');
    const name = str(f, 'process', 'processName', 'name', 'comm');
    const detail = str(f, 'detail');
    return join([`Host OOM killer ended ${join([name ?? 'a process', pid ? `(pid ${pid})` : null], ' ')}`, detail], ' — ');
  },

  VersionFact: (f) => {
    const component = str(f, 'component');
    const version = str(f, 'version');
    const origin = str(f, 'origin');
    return component || version ? join([join([component, version], ' '), origin ? `(${origin})` : null], ' ') : null;
  },

  BuildInfo: (f) => buildText(f, true),

  Platform: (f) => {
    const flags = Array.isArray(f.cpuFlags) && f.cpuFlags.length ? `CPU flags ${f.cpuFlags.join(' ')}` : null;
    const s = join([osText(f), str(f, 'python') ? `Python ${str(f, 'python')}` : null, str(f, 'cpu'), flags]);
    return s || null;
  },

  GpuDevice: (f) => {
    const s = join([
      gpuText(f),
      driverText(f),
      str(f, 'performanceState'),
      num(f, 'temperatureC') !== null ? `${num(f, 'temperatureC')} °C` : null,
      f.unavailable && typeof f.unavailable === 'object' && Object.keys(f.unavailable).length
        ? `unavailable: ${Object.entries(f.unavailable as Fields).map(([k, v]) => `${k}=${String(v)}`).join(', ')}`
        : null,
    ]);
    return s || null;
  },

  WindowsEvent: (f) => {
    const head = join([str(f, 'provider'), str(f, 'eventId')], ' ');
    const message = str(f, 'message');
    const s = join([head, str(f, 'level'), str(f, 'time'), message ? message.split('\n')[0] : null]);
    return s || null;
  },

  ApplicationFault: (f) => {
    const app = join([str(f, 'application') ?? 'a program', str(f, 'applicationVersion')], ' ');
    const module = join([str(f, 'module'), str(f, 'moduleVersion')], ' ');
    const code = str(f, 'exceptionCode');
    const offset = str(f, 'faultOffset');
    switch (str(f, 'event')) {
      case 'hang':
        return `${app} stopped responding`;
      case 'dotnet':
        return join([`${app}: unhandled .NET exception`, str(f, 'module')], ' ');
      default:
        return join([`${app} crashed${module ? ` in ${module}` : ''}`, join([code, offset ? `at ${offset}` : null], ' ')], ' — ');
    }
  },

  WerReport: (f) => {
    const name = str(f, 'eventName');
    if (!name) return null;
    return join([`WER ${name}`, str(f, 'application'), str(f, 'exceptionCode'),
      str(f, 'bucket') ? `bucket ${str(f, 'bucket')}` : null]);
  },

  DisplayDriverEvent: (f) => {
    const head = join([str(f, 'provider'), str(f, 'eventId')], ' ');
    const driver = str(f, 'driver');
    const reset = f.recovered === true ? `${driver ?? 'display driver'} was reset and recovered`
      : f.recovered === false ? `${driver ?? 'display driver'} was reset and did not recover` : null;
    const gpu = str(f, 'gpuId');
    return join([head, reset, str(f, 'device'), gpu ? `GPU id ${gpu}` : null, str(f, 'detail')]) || null;
  },
};

/** One line saying what the fact states. */
export function summarize(fact: Fact): string {
  const formatter = FORMATTERS[fact.kind];
  if (formatter) {
    try {
      const s = formatter(fact);
      if (s) return clip(s);
    } catch {
      // a field of an unexpected shape: the generic line still says everything
    }
  }
  return genericSummary(fact);
}

/** A short label for a kind: "PythonException" -> "Python exception". */
export function kindLabel(kind: string): string {
  const special: Record<string, string> = {
    GpuDevice: 'GPU device',
    GpuProcess: 'GPU process',
    GpuLost: 'GPU lost',
    XidEvent: 'Xid event',
    HostOomKill: 'Host OOM kill',
    VersionFact: 'Version',
    BuildInfo: 'Framework build',
    WheaEvent: 'WHEA event',
  };
  if (special[kind]) return special[kind];
  const words = kind.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' ');
  return words.map((w, i) => (i === 0 ? w : w.toLowerCase())).join(' ');
}

function osText(f: Fields): string | null {
  const os = str(f, 'os');
  const arch = str(f, 'arch');
  return os ? join([os, arch ? `(${arch})` : null], ' ') : null;
}

function buildText(f: Fields, withFramework: boolean): string | null {
  const fw = withFramework ? join([str(f, 'framework'), str(f, 'frameworkVersion')], ' ') : '';
  if (f.cpuOnly === true) return join([fw, 'CPU-only build (no CUDA)'], ' — ');
  const cuda = str(f, 'cudaVersion');
  const cudnn = str(f, 'cudnnVersion');
  const built = join([cuda ? `CUDA ${cuda}` : null, cudnn ? `cuDNN ${cudnn}` : null], ', ');
  if (!built) return fw || null;
  return withFramework && fw ? `${fw} built for ${built}` : built;
}

function gpuText(f: Fields): string | null {
  const name = str(f, 'name');
  const index = str(f, 'index');
  const total = num(f, 'memoryTotalMiB');
  const cc = str(f, 'computeCapability');
  if (!name && total === null && !cc) return null;
  return join([
    join([index !== null ? `GPU ${index}:` : null, name ?? 'unnamed GPU'], ' '),
    total !== null ? formatMiB(total) : null,
    cc ? `compute capability ${cc}` : null,
  ]);
}

function driverText(f: Fields): string | null {
  const driver = str(f, 'driverVersion');
  const cuda = str(f, 'driverCudaVersion');
  if (!driver && !cuda) return null;
  return join([driver ? `driver ${driver}` : 'driver', cuda ? `(supports CUDA up to ${cuda})` : null], ' ');
}

// ---------- the environment at a glance ----------

export interface EnvValue {
  text: string;
  /** Secondary text shown after the value, muted. */
  note?: string;
  /** What the value means, shown after it in plain text. */
  detail?: string;
  source?: SourceRef;
}

export interface EnvRow {
  key: string;
  label: string;
  values: EnvValue[];
}

const FRAMEWORKS = ['torch', 'tensorflow', 'tensorflow-gpu', 'tensorflow-cpu', 'tf-nightly', 'jax', 'jaxlib',
  'onnxruntime', 'onnxruntime-gpu', 'paddlepaddle', 'paddlepaddle-gpu', 'mxnet'];

/** Rows every summary shows, saying so when the bundle does not state them. */
export const KEY_ROWS = new Set(['framework', 'driver', 'gpus', 'exit']);

function first(fact: Fact): SourceRef | undefined {
  return Array.isArray(fact.sources) && fact.sources.length ? fact.sources[0] : undefined;
}

class Values {
  private readonly list: EnvValue[] = [];
  private readonly seen = new Map<string, EnvValue>();

  /** Adds a value unless one with the same key is there; `key` defaults to the text, case-blind. */
  add(text: string | null, source: SourceRef | undefined, note?: string, detail?: string, key?: string): void {
    if (!text) return;
    const k = key ?? text.toLowerCase();
    const existing = this.seen.get(k);
    if (existing) {
      // the same value stated twice: keep the fuller spelling ("torch 2.5.1+cu121" over "torch 2.5.1")
      if (text.length > existing.text.length) {
        existing.text = text;
        if (source) existing.source = source;
      }
      if (!existing.note && note) existing.note = note;
      return;
    }
    const v: EnvValue = { text, source, note, detail };
    this.seen.set(k, v);
    this.list.push(v);
  }

  get values(): EnvValue[] {
    return this.list;
  }
}

interface MergedGpu {
  fields: Fields;
  source?: SourceRef;
  /** How many fields the fact that gave the source stated: the link goes to the fullest statement. */
  weight: number;
}

function stated(f: Fields): number {
  return Object.entries(f).filter(([k, v]) => k !== 'kind' && k !== 'sources' && v != null && v !== '').length;
}

/** Puts together the GpuDevice facts that describe the same card (same name, no conflicting index or bus). */
function mergeGpus(devices: Fact[]): MergedGpu[] {
  const out: MergedGpu[] = [];
  const same = (a: Fields, b: Fields, field: string) => a[field] == null || b[field] == null || a[field] === b[field];
  for (const d of devices) {
    const match = out.find(
      (m) => m.fields.name === d.name && same(m.fields, d, 'index') && same(m.fields, d, 'busId') && same(m.fields, d, 'uuid'),
    );
    if (!match) {
      out.push({ fields: { ...d }, source: first(d), weight: stated(d) });
      continue;
    }
    for (const [k, v] of Object.entries(d)) if (match.fields[k] == null && v != null) match.fields[k] = v;
    const weight = stated(d);
    if (first(d) && (!match.source || weight > match.weight)) {
      match.source = first(d);
      match.weight = weight;
    }
  }
  return out;
}

/** The environment rows this bundle has data for, plus the key rows (empty when not stated). */
export function environment(facts: BundleFacts): EnvRow[] {
  const all = facts.artifacts.flatMap((a) => a.facts ?? []);
  const of = (kind: string) => all.filter((f) => f.kind === kind);
  const versions = (...components: string[]) =>
    of('VersionFact').filter((f) => components.includes(String(f.component ?? '').toLowerCase()));

  const os = new Values();
  const python = new Values();
  for (const p of of('Platform')) {
    os.add(osText(p), first(p));
    python.add(str(p, 'python'), first(p));
  }
  for (const v of versions('os')) os.add(str(v, 'version'), first(v));
  for (const v of versions('python')) python.add(str(v, 'version'), first(v));

  const framework = new Values();
  // "torch 2.5.1" (a build) and "torch 2.5.1+cu121" (pip) are one framework version
  const frameworkKey = (text: string) => text.toLowerCase().replace(/\+.*$/, '');
  const addFramework = (text: string, source: SourceRef | undefined) => {
    if (text) framework.add(text, source, undefined, undefined, frameworkKey(text));
  };
  const built = new Values();
  for (const b of of('BuildInfo')) {
    addFramework(join([str(b, 'framework'), str(b, 'frameworkVersion')], ' '), first(b));
    const fw = str(b, 'framework');
    built.add(buildText(b, false), first(b), fw ? `(${fw})` : undefined);
  }
  for (const v of versions(...FRAMEWORKS)) addFramework(join([str(v, 'component'), str(v, 'version')], ' '), first(v));

  const cuda = new Values();
  const origin = (v: Fact) => (str(v, 'origin') ? `(${str(v, 'origin')})` : undefined);
  for (const v of versions('cuda-runtime')) cuda.add(str(v, 'version'), first(v), origin(v));
  const nvcc = new Values();
  for (const v of versions('nvcc')) nvcc.add(str(v, 'version'), first(v));
  const cudnn = new Values();
  for (const v of versions('cudnn')) cudnn.add(str(v, 'version'), first(v), origin(v));

  const gpus = mergeGpus(of('GpuDevice'));
  const driver = new Values();
  for (const g of gpus) {
    const version = str(g.fields, 'driverVersion');
    const max = str(g.fields, 'driverCudaVersion');
    if (version || max) {
      driver.add(version ?? 'version not shown', g.source, max ? `· supports CUDA up to ${max} (the driver's limit, not an installed toolkit)` : undefined);
    }
  }
  for (const v of versions('nvidia-driver')) driver.add(str(v, 'version'), first(v));
  const gpu = new Values();
  for (const g of gpus) gpu.add(gpuText(g.fields), g.source);

  const exit = new Values();
  for (const e of of('ExitStatus')) {
    const parts = exitStatusParts(e);
    if (parts) exit.add(parts.head, first(e), undefined, parts.meaning ?? undefined);
    else exit.add(genericSummary(e), first(e));
  }

  const rows: EnvRow[] = [
    { key: 'os', label: 'OS', values: os.values },
    { key: 'python', label: 'Python', values: python.values },
    { key: 'framework', label: 'Framework', values: framework.values },
    { key: 'built', label: 'Built for', values: built.values },
    { key: 'cuda', label: 'CUDA runtime', values: cuda.values },
    { key: 'nvcc', label: 'CUDA toolkit (nvcc)', values: nvcc.values },
    { key: 'cudnn', label: 'cuDNN', values: cudnn.values },
    { key: 'driver', label: 'NVIDIA driver', values: driver.values },
    { key: 'gpus', label: gpu.values.length > 1 ? 'GPUs' : 'GPU', values: gpu.values },
    { key: 'exit', label: 'Exit status', values: exit.values },
  ];
  return rows.filter((r) => r.values.length > 0 || KEY_ROWS.has(r.key));
}
