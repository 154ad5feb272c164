/**
 * Reads console logs (program output, Python tracebacks, shell reports) into facts: one small rule per kind of
 * line ({@code TracebackTracker}, {@code ExitStatusRule}, {@code LibraryLoadRule}, {@code StatusCodeRule},
 * {@code MemoryRule}, {@code LogLineRule}, {@code EnvironmentRule}, {@code GpuLogRule}), all fed by
 * {@link dev.crashlab.parse.console.ConsoleLogParser}.
 *
 * <p>Speed: each rule lists, beside its checks, the literals a line must hold for it to find anything
 * ({@code LITERALS}); one {@code LiteralScan} automaton over all of them runs over the raw bytes in the loop that
 * finds line ends, and a rule sees a line only when one of its literals is there or it waits for a continuation
 * ({@code armed()}). A new check needs its literal in that list: {@code ConsoleLogParserPrefilterTest} compares the
 * facts with the prefilter against every rule reading every line, on the fixtures, the real corpus and seeded
 * random logs, and fails on a missing literal. {@code MemoryRule} also reads two bits that are no rule's
 * ({@code MEMORY_MENTION}, {@code MEMORY_DETAIL}): a line that mentions memory without a shortage's wording
 * ({@code MemoryRule.DETAILS}) only marks the mention; a check with new wording adds it to {@code DETAILS}.
 *
 * <p>{@code SharedLineScan} is that loop, shared: for a console log the reading pass builds one automaton over the
 * union of every parser's literals (this package's rules, then each {@link dev.crashlab.parse.LineFedParser}'s, tagged
 * with bits of their own; each literal's first {@code LITERAL_BYTES} bytes) and feeds every parser and the text
 * window from it on one thread; the console-log parser alone reads through it too.
 *
 * <p>Facts the diagnosis can rely on:
 * <ul>
 *   <li>shell and IDE reports of a signal are {@code ExitStatus} with the signal's name, in every spelling read:
 *       {@code Killed} and exit code 137 ({@code SIGKILL}), macOS {@code Abort trap: 6}, zsh {@code zsh: illegal
 *       hardware instruction} and {@code [1] 4242 killed}, and glibc's French, German, Spanish and Russian names
 *       ({@code Abandon (core dumped)} is {@code SIGABRT}, {@code Speicherzugriffsfehler} {@code SIGSEGV});
 *   <li>numbered CUDA errors are {@code StatusCode(cuda-runtime, <name>)}: {@code CUDA error = 999} is
 *       {@code cudaErrorUnknown}, {@code THCudaCheck FAIL ... error=2} {@code cudaErrorMemoryAllocation}; a number whose
 *       meaning changed with CUDA 10.1 keeps its text ({@code CUDA error 30}); the runtime's messages without a name
 *       ({@code the launch timed out and was terminated}) give the name the runtime gives them
 *       ({@code cudaErrorLaunchTimeout});
 *   <li>a GPU a log names, a bare {@code compute capability: 7.5} and a pasted {@code nvidia-smi} row pair
 *       ({@code 7940MiB / 8112MiB}) are {@code GpuDevice}s; {@code name} is null where the line names no GPU;
 *   <li>a printed {@code TensorFlow version: 2.9.1} is {@code VersionFact(tensorflow, 2.9.1, log: printed version)};
 *       an interpreter started from a {@code C:\...\python.exe} path is {@code Platform(osFamily windows)}, a line naming
 *       WSL2's {@code /usr/lib/wsl/lib}, {@code /dev/dxg} or its {@code -microsoft-standard-WSL2} kernel is
 *       {@code Platform(osFamily wsl2)} (the diagnosis trusts the job's own output over another file's OS); TF's
 *       loader opening or wanting a CUDA library is {@code BuildInfo(tensorflow, cpuOnly false)} (a GPU build) and the
 *       library's version is {@code cuda-runtime}/{@code cudnn} with origin {@code log: missing library} (wanted, not
 *       present) or {@code log: opened library}; a GitHub issue form pasted above the log gives its answers (the next line
 *       that is not blank under {@code ### TensorFlow version}, {@code ### Python version}: {@code VersionFact} with origin
 *       {@code log: issue form}; under {@code ### OS platform and distribution}: {@code Platform}; under
 *       {@code ### GPU model and memory}, an NVIDIA card: {@code GpuDevice}).
 * </ul>
 */
package dev.crashlab.parse.console;
