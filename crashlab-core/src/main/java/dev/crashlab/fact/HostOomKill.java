package dev.crashlab.fact;

import java.util.List;

/**
 * A process the Linux OOM killer ended because the host (or its cgroup) ran out of memory.
 *
 * @param pid the killed process's id
 * @param process the killed process's name
 * @param detail the rest of the kernel's line (memory figures, constraint), as printed
 */
public record HostOomKill(Long pid, String process, String detail, List<SourceRef> sources) implements ProcessFact {

    public HostOomKill {
        sources = List.copyOf(sources);
    }

    @Override
    public HostOomKill withSources(List<SourceRef> s) {
        return new HostOomKill(pid, process, detail, s);
    }
}
