package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.GpuMemoryHeld;
import dev.crashlab.fact.GpuProcess;
import dev.crashlab.fact.MemoryShortage;
import dev.crashlab.fact.ProcessFact;
import dev.crashlab.fact.PythonException;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.StatusCode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tells, when the job failed to allocate GPU memory and the bundle holds a snapshot of the GPU's processes
 * ({@code nvidia-smi}'s Processes table, {@code -q}, {@code -q -x}, {@code --query-compute-apps}), how much of the card
 * other processes held: the deciding evidence between the job's own footprint ({@code gpu-oom}) and another process
 * ({@code conflicting-gpu-process}). nvidia-smi lists every process with a context on the GPU, by process id, with the
 * memory it uses (https://docs.nvidia.com/deploy/nvidia-smi/index.html, "Processes"); it does not say which is the job.
 * The job's output says so only where it prints its own process id; the launchers that do are read here, each by its
 * own form. Where no id matches, a single GPU's processes still bound what others held (see {@link GpuMemoryHeld}).
 * A snapshot taken in a container lists host ids (or none), so an id that is not listed proves nothing either way.
 */
final class GpuMemoryHolders {

    /** The job's own process id, as launchers print it. */
    private static final List<Pattern> JOB_PID = List.of(
            // torchrun / torch.distributed.elastic's failure summary: "exitcode  : 1 (pid: 12345)"
            // (torch/distributed/elastic/multiprocessing/errors/__init__.py, ChildFailedError.format_msg)
            Pattern.compile("\\bexitcode\\s*:\\s*-?\\d+\\s*\\(pid:\\s*(\\d+)\\)"),
            // torch.distributed.elastic stopping the other workers: "Sending process 12345 closing signal SIGTERM"
            Pattern.compile("\\bSending process (\\d+) closing signal\\b"),
            // Ray's worker prefix: "(pid=12345)", "(RayTrainWorker pid=12345)", "(pid=12345, ip=10.0.0.2)"
            Pattern.compile("\\((?:[A-Za-z_][\\w.:]*\\s+)?pid=(\\d+)(?:,\\s*ip=[^)]*)?\\)"),
            // DeepSpeed's launcher: "process 12345 spawned with command: [...]"
            Pattern.compile("\\bprocess (\\d+) spawned with command\\b"));

    /** Interpreters a Python job runs as (nvidia-smi shows the executable's path, elided from the left with "..."). */
    private static final Pattern PYTHON = Pattern.compile(
            "(?i)(^|[\\\\/.\\s])(python[0-9.]*w?(\\.exe)?|pypy[0-9.]*(\\.exe)?|ipykernel[\\w.-]*|ray::[\\w.:]+)$");

    private static final Pattern ALLOC_FAILED = Pattern.compile("(?i)ALLOC_FAILED|OUT_OF_MEMORY|MemoryAllocation");
    /** An exception that says the GPU ran out: PyTorch's {@code CUDA error: out of memory}, {@code torch.OutOfMemoryError}. */
    private static final Pattern OOM_EXCEPTION = Pattern.compile("(?i)\\bCUDA (error: )?out of memory|OutOfMemoryError");

    private GpuMemoryHolders() {}

    /** Returns {@code input} with a {@link GpuMemoryHeld} for each GPU it can say something about, or {@code input}. */
    static DiagnosisInput derive(DiagnosisInput input) {
        List<GpuMemoryHeld> held = held(input);
        if (held.isEmpty()) {
            return input;
        }
        List<Fact> facts = new ArrayList<>(input.facts());
        facts.addAll(held);
        return new DiagnosisInput(facts, input.lines());
    }

    static List<GpuMemoryHeld> held(DiagnosisInput input) {
        SourceRef failure = null;
        boolean python = false;
        Set<String> jobArtifacts = new HashSet<>();
        List<GpuProcess> processes = new ArrayList<>();
        List<GpuDevice> devices = new ArrayList<>();
        for (Fact f : input.facts()) {
            if (f instanceof GpuProcess p) {
                processes.add(p);
            } else if (f instanceof GpuDevice d) {
                devices.add(d);
            } else if (f instanceof ProcessFact) {
                f.sources().forEach(s -> jobArtifacts.add(s.artifact()));
                if (failure == null && (f instanceof MemoryShortage m && "gpu".equalsIgnoreCase(m.where())
                        || f instanceof StatusCode c && c.name() != null && ALLOC_FAILED.matcher(c.name()).find()
                        || f instanceof PythonException e && OOM_EXCEPTION.matcher(e.type() + ": " + e.message()).find())
                        && !f.sources().isEmpty()) {
                    failure = f.sources().getFirst();
                }
                python |= f instanceof PythonException;
            }
        }
        if (failure == null || processes.isEmpty()) {
            return List.of();
        }
        Set<String> snapshots = GpuSnapshots.artifacts(input.facts());
        jobArtifacts.removeAll(snapshots);
        Map<Long, SourceRef> jobPids = jobPids(input.lines(), jobArtifacts);

        // one snapshot at a time: the processes of each GPU of each artifact
        Map<String, Map<Integer, List<GpuProcess>>> bySnapshot = new LinkedHashMap<>();
        for (GpuProcess p : processes) {
            if (p.pid() == null || p.usedMemoryMiB() == null || p.type() != null && !p.type().contains("C")) {
                continue; // graphics-only, or memory not shown (WDDM prints N/A)
            }
            bySnapshot.computeIfAbsent(p.sources().getFirst().artifact(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(p.gpuIndex(), k -> new ArrayList<>()).add(p);
        }
        List<GpuMemoryHeld> out = new ArrayList<>();
        for (Map.Entry<String, Map<Integer, List<GpuProcess>>> snapshot : bySnapshot.entrySet()) {
            String artifact = snapshot.getKey();
            List<GpuDevice> gpus = devices.stream().filter(d -> d.sources().stream().anyMatch(s -> s.artifact().equals(artifact)))
                    .toList();
            boolean jobListed = snapshot.getValue().values().stream().flatMap(List::stream).anyMatch(p -> jobPids.containsKey(p.pid()));
            boolean oneGpu = snapshot.getValue().size() == 1 && gpus.size() <= 1;
            for (Map.Entry<Integer, List<GpuProcess>> gpu : snapshot.getValue().entrySet()) {
                GpuMemoryHeld h = jobListed ? byPid(gpu.getKey(), gpu.getValue(), gpus, jobPids, failure)
                        : oneGpu ? bound(gpu.getKey(), gpu.getValue(), gpus, python, failure) : null;
                if (h != null) {
                    out.add(h);
                }
            }
        }
        return out;
    }

    /** The process ids the job's own output printed for itself, with the line that printed each. */
    static Map<Long, SourceRef> jobPids(List<TextLine> lines, Set<String> jobArtifacts) {
        Map<Long, SourceRef> pids = new LinkedHashMap<>();
        for (TextLine l : lines) {
            if (!jobArtifacts.contains(l.artifact()) || !l.text().contains("process") && !l.text().contains("pid")) {
                continue;
            }
            for (Pattern p : JOB_PID) {
                Matcher m = p.matcher(l.text());
                while (m.find()) {
                    try {
                        pids.putIfAbsent(Long.valueOf(m.group(1)), new SourceRef(l.artifact(), l.line(), l.text()));
                    } catch (NumberFormatException e) {
                        // more digits than a process id has: not one
                    }
                }
            }
        }
        return pids;
    }

    // the job's process is listed on some GPU of this snapshot: on the GPU where it is, the rest are other processes
    private static GpuMemoryHeld byPid(Integer index, List<GpuProcess> onGpu, List<GpuDevice> gpus, Map<Long, SourceRef> jobPids,
            SourceRef failure) {
        GpuProcess job = onGpu.stream().filter(p -> jobPids.containsKey(p.pid())).findFirst().orElse(null);
        if (job == null) {
            return null; // the job ran on another GPU of the machine
        }
        List<GpuProcess> others = onGpu.stream().filter(p -> !jobPids.containsKey(p.pid())).toList();
        long jobMiB = onGpu.stream().filter(p -> jobPids.containsKey(p.pid())).mapToLong(GpuProcess::usedMemoryMiB).sum();
        List<SourceRef> sources = new ArrayList<>();
        sources.add(jobPids.get(job.pid()));
        sources.add(failure);
        return make(index, onGpu, others, gpus, job.pid(), jobMiB, "pid", sources);
    }

    // no process id of the job's is listed, and the snapshot shows one GPU: what others held at least
    private static GpuMemoryHeld bound(Integer index, List<GpuProcess> onGpu, List<GpuDevice> gpus, boolean python, SourceRef failure) {
        List<GpuProcess> notPython = python
                ? onGpu.stream().filter(p -> p.processName() != null && !p.processName().isBlank()
                        && !PYTHON.matcher(p.processName().strip()).find()).toList()
                : List.of();
        List<GpuProcess> allButLargest = onGpu.stream().sorted(Comparator.comparing(GpuProcess::usedMemoryMiB).reversed())
                .skip(1).toList();
        long byProgram = notPython.stream().mapToLong(GpuProcess::usedMemoryMiB).sum();
        long byCount = allButLargest.stream().mapToLong(GpuProcess::usedMemoryMiB).sum();
        if (byProgram == 0 && byCount == 0) {
            return null; // one compute process, perhaps the job itself: nothing can be said
        }
        boolean program = byProgram >= byCount;
        List<SourceRef> sources = new ArrayList<>();
        sources.add(failure);
        return make(index, onGpu, program ? notPython : allButLargest, gpus, null, null, program ? "program" : "count", sources);
    }

    private static GpuMemoryHeld make(Integer index, List<GpuProcess> onGpu, List<GpuProcess> others, List<GpuDevice> gpus, Long jobPid,
            Long jobMiB, String basis, List<SourceRef> sources) {
        Long total = gpus.stream().filter(d -> gpus.size() == 1 || Objects.equals(d.index(), index))
                .map(GpuDevice::memoryTotalMiB).filter(Objects::nonNull).findFirst().orElse(null);
        long othersMiB = others.stream().mapToLong(GpuProcess::usedMemoryMiB).sum();
        List<GpuProcess> largestFirst = others.stream().sorted(Comparator.comparing(GpuProcess::usedMemoryMiB).reversed()).toList();
        List<SourceRef> cited = new ArrayList<>();
        largestFirst.forEach(p -> cited.add(p.sources().getFirst()));
        if (jobPid != null) {
            onGpu.stream().filter(p -> p.pid().equals(jobPid)).findFirst().ifPresent(p -> cited.add(p.sources().getFirst()));
        }
        cited.addAll(sources);
        String names = String.join(", ", largestFirst.stream()
                .map(p -> (p.processName() == null ? "a process" : p.processName().strip()) + " (pid " + p.pid() + ", "
                        + p.usedMemoryMiB() + " MiB)").toList());
        return new GpuMemoryHeld(index, total, onGpu.size(), jobPid, jobMiB, percent(jobMiB, total), othersMiB,
                percent(othersMiB, total), names.isEmpty() ? "none" : names, basis, cited);
    }

    private static Integer percent(Long part, Long total) {
        return part == null || total == null || total <= 0 ? null : (int) Math.min(100, part * 100 / total);
    }
}
