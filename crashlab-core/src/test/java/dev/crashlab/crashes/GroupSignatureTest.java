package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ExitStatus;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.KernelPowerEvent;
import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.fact.LogLine;
import dev.crashlab.fact.PythonException;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.StatusCode;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.fact.XidEvent;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One table per group signature rule: what parts (and notes) it makes of which facts. */
class GroupSignatureTest {

    static SourceRef at(int line, String text) {
        return new SourceRef("crash.log", line, text);
    }

    static PythonException exception(String type, String message, PythonException.Frame... frames) {
        return new PythonException(type, message, List.of(frames), List.of(at(90, type + ": " + message)));
    }

    static LibraryLoadFailure lib(String name, int line, String text) {
        return new LibraryLoadFailure(name, "cannot open shared object file", List.of(at(line, text)));
    }

    static StatusCode code(String name) {
        return new StatusCode("cuda", name, List.of(at(50, "error: " + name)));
    }

    static ExitStatus exit(long code, String hex, String name, ExitStatus.Kind kind) {
        return new ExitStatus(code, hex, name, null, kind, List.of(at(99, "exit code " + code)));
    }

    /** The parts {@code rules} make of {@code facts} (no diagnosis). */
    static List<String> parts(List<GroupSignature.Rule> rules, List<Fact> facts) {
        return GroupSignature.run(rules, facts, List.of(), SignatureLists.shipped()).parts();
    }

    static Arguments row(String what, List<Fact> facts, List<String> parts) {
        return Arguments.of(what, facts, parts);
    }

    @Nested
    class SetAsideEvents {
        @Test
        void appliesWhenTheDiagnosisSetAnEventAside() {
            SourceRef reboot = new SourceRef("System.evtx", 62782, "Kernel-Power 41");
            KernelPowerEvent power = new KernelPowerEvent(null, List.of(), null, null, List.of(reboot));
            XidEvent xid = new XidEvent(79, null, null, null, null, "Xid 79", null, List.of(at(3, "NVRM: Xid 79")));
            GroupSignature.Result r = GroupSignature.run(List.of(new GroupSignature.SetAsideEvents(), new GroupSignature.NativeEvents()),
                    List.of(power, xid), List.of(reboot), SignatureLists.shipped());
            assertThat(r.parts()).containsExactly("Xid 79");
            assertThat(r.notes()).anyMatch(n -> n.startsWith("set-aside-events: left out 1 fact(s)") && n.contains("KernelPowerEvent"));
        }

        @Test
        void doesNotApplyWhenNothingWasSetAside() {
            SourceRef reboot = new SourceRef("System.evtx", 62782, "Kernel-Power 41");
            KernelPowerEvent power = new KernelPowerEvent(null, List.of(), null, null, List.of(reboot));
            GroupSignature.Result r = GroupSignature.run(List.of(new GroupSignature.SetAsideEvents(), new GroupSignature.NativeEvents()),
                    List.of(power), List.of(), SignatureLists.shipped());
            assertThat(r.parts()).containsExactly("Kernel-Power 41");
            assertThat(r.notes()).noneMatch(n -> n.startsWith("set-aside-events"));
        }
    }

    @Nested
    class InformationalLines {
        static Stream<Arguments> table() {
            String ncclInfo = "host:73025:73025 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file";
            String glogInfo = "2021-11-22 23:55:07.019016: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] "
                    + "Could not load dynamic library 'libcudart.so.11.0'";
            String glogError = "2021-11-22 23:55:07.019016: E tensorflow/stream_executor/cuda/cuda_dnn.cc:385] "
                    + "Could not load dynamic library 'libcudnn.so.8'";
            return Stream.of(
                    row("an NCCL INFO line is left out", List.of(lib("libnccl-net.so", 1, ncclInfo)), List.of()),
                    row("a glog I line is left out", List.of(lib("libcudart.so.11.0", 1, glogInfo)), List.of()),
                    row("a glog E line stays", List.of(lib("libcudnn.so.8", 1, glogError)), List.of("cannot load libcudnn.so.8")),
                    row("a plain error line stays", List.of(lib("zlibwapi.dll", 1, "Could not locate zlibwapi.dll")),
                            List.of("cannot load zlibwapi.dll")),
                    row("a fact also read from an error line stays", List.of(new LibraryLoadFailure("libnccl-net.so", "x",
                            List.of(at(1, ncclInfo), at(2, "failed to load libnccl-net.so")))), List.of("cannot load libnccl-net.so")));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.InformationalLines(), new GroupSignature.LibraryLoads()), facts))
                    .isEqualTo(expected);
        }
    }

    @Nested
    class FinalException {
        static Stream<Arguments> table() {
            return Stream.of(
                    row("type and normalized message", List.of(exception("RuntimeError",
                            "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)")),
                            List.of("RuntimeError: CUDA out of memory. Tried to allocate <n> MiB (GPU <n>; <n> GiB total capacity)")),
                    row("the module path of the type is dropped", List.of(exception("tensorflow.python.framework.errors_impl.InternalError",
                            "Blas GEMM launch failed")), List.of("InternalError: Blas GEMM launch failed")),
                    row("paths, addresses and urls are masked", List.of(exception("OSError",
                            "[WinError 126] Error loading \"C:\\env\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll\" at 0x7ffb1234")),
                            List.of("OSError: [WinError <n>] Error loading \"<path>\" at <hex>")),
                    row("no message: the type alone", List.of(exception("AssertionError", null)), List.of("AssertionError")),
                    row("the last of a chain", List.of(exception("ImportError", "numpy.core.multiarray failed to import"),
                            exception("RuntimeError", "module compiled against API version 0x10")),
                            List.of("RuntimeError: module compiled against API version <hex>")),
                    row("a wrapper passes to the one before", List.of(exception("RuntimeError", "NCCL Error 2: unhandled system error"),
                            exception("torch.multiprocessing.spawn.ProcessRaisedException", "-- Process 1 terminated with the following error")),
                            List.of("RuntimeError: NCCL Error <n>: unhandled system error")),
                    row("no exception: no part", List.of(code("cudaErrorAssert")), List.of()));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.FinalException()), facts)).isEqualTo(expected);
        }

        @Test
        void aLongMessageIsCutAtAWord() {
            String words = "word ".repeat(100);
            String part = GroupSignatureTest.parts(List.of(new GroupSignature.FinalException()), List.of(exception("ValueError", words))).getFirst();
            assertThat(part).startsWith("ValueError: word word").endsWith(" …");
            assertThat(part.length()).isLessThanOrEqualTo("ValueError: ".length() + GroupSignature.MAX_MESSAGE + 2);
        }
    }

    @Nested
    class FatalLogLine {
        static LogLine line(LogLine.Severity s, String message) {
            return new LogLine(s, "tensorflow/core/kernels/conv_ops.cc:667", message, List.of(at(7, message)));
        }

        static Stream<Arguments> table() {
            return Stream.of(
                    row("the first fatal line", List.of(line(LogLine.Severity.ERROR, "could not create cudnn handle"),
                            line(LogLine.Severity.FATAL, "Check failed: status == CUDNN_STATUS_SUCCESS (7 vs. 0)")),
                            List.of("Check failed: status == CUDNN_STATUS_SUCCESS (<n> vs. <n>)")),
                    row("else the first error line", List.of(line(LogLine.Severity.WARNING, "slow"),
                            line(LogLine.Severity.ERROR, "failed call to cuInit: CUDA_ERROR_UNKNOWN")),
                            List.of("failed call to cuInit: CUDA_ERROR_UNKNOWN")),
                    row("warnings alone: no part", List.of(line(LogLine.Severity.WARNING, "slow")), List.of()),
                    row("an exception comes first", List.of(exception("ValueError", "bad"), line(LogLine.Severity.FATAL, "abort")),
                            List.of("ValueError: bad")));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.FinalException(), new GroupSignature.FatalLogLine()), facts))
                    .isEqualTo(expected);
        }
    }

    @Nested
    class StatusCodes {
        static Stream<Arguments> table() {
            return Stream.of(
                    row("sorted and distinct", List.of(code("CUDNN_STATUS_INTERNAL_ERROR"), code("CUDA_ERROR_LAUNCH_FAILED"),
                            code("CUDNN_STATUS_INTERNAL_ERROR")), List.of("CUDA_ERROR_LAUNCH_FAILED, CUDNN_STATUS_INTERNAL_ERROR")),
                    row("at most three", List.of(code("d"), code("c"), code("b"), code("a")), List.of("a, b, c")),
                    row("none: no part", List.of(), List.of()));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.StatusCodes()), facts)).isEqualTo(expected);
        }
    }

    @Nested
    class LibraryLoads {
        static Stream<Arguments> table() {
            return Stream.of(
                    row("by file name, sorted", List.of(lib("C:\\cuda\\bin\\zlibwapi.dll", 1, "x"), lib("/usr/lib/libcudnn.so.8", 2, "y")),
                            List.of("cannot load libcudnn.so.8, zlibwapi.dll")),
                    row("none: no part", List.of(code("x")), List.of()));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.LibraryLoads()), facts)).isEqualTo(expected);
        }
    }

    @Nested
    class LibraryAgainstInstalled {
        static VersionFact installed(String component, String version, int line) {
            return new VersionFact(component, version, "pip list", List.of(new SourceRef("env.txt", line, component + " " + version)));
        }

        static Stream<Arguments> table() {
            LibraryLoadFailure ops8 = lib("libcudnn_ops_infer.so.8", 4, "Could not load library libcudnn_ops_infer.so.8");
            return Stream.of(
                    row("cuDNN 9 installed where 8 was wanted", List.of(ops8, installed("cudnn", "9.1.0.70", 3)),
                            List.of("cudnn 9 installed, not 8")),
                    row("the wanted major installed: no part", List.of(ops8, installed("cudnn", "8.9.2", 3)), List.of()),
                    row("a version read from the failing line itself is not what is installed", List.of(
                            lib("cudnn_cnn_infer64_8.dll", 4, "Could not locate cudnn_cnn_infer64_8.dll"),
                            new VersionFact("cudnn", "9", "env: library name", List.of(at(4, "Could not locate cudnn_cnn_infer64_8.dll")))),
                            List.of()),
                    row("a library no list names: no part", List.of(lib("zlibwapi.dll", 4, "x"), installed("cudnn", "9.1", 3)), List.of()),
                    row("Windows DLL names count", List.of(lib("cudnn_ops_infer64_8.dll", 4, "x"), installed("cudnn", "9.0", 3)),
                            List.of("cudnn 9 installed, not 8")));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.LibraryAgainstInstalled()), facts)).isEqualTo(expected);
        }
    }

    @Nested
    class NativeEvents {
        static Stream<Arguments> table() {
            return Stream.of(
                    row("an Xid", List.of(new XidEvent(79, null, null, "GPU_HAS_FALLEN_OFF_THE_BUS", null, "Xid 79", null, List.of(at(1, "Xid 79")))),
                            List.of("Xid 79")),
                    row("a power loss is generic", List.of(new KernelPowerEvent(null, List.of(), null, null, List.of(at(1, "41")))),
                            List.of("Kernel-Power 41")),
                    row("nothing native: no part", List.of(code("x")), List.of()));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.NativeEvents()), facts)).isEqualTo(expected);
        }
    }

    @Nested
    class ExitStatusRule {
        static Stream<Arguments> table() {
            return Stream.of(
                    row("a signal with a name", List.of(exit(9, null, "SIGKILL", ExitStatus.Kind.SIGNAL)), List.of("exit 9 (SIGKILL)")),
                    row("an NTSTATUS by its hex", List.of(exit(3221225501L, "0xC000001D", "STATUS_ILLEGAL_INSTRUCTION", ExitStatus.Kind.NTSTATUS)),
                            List.of("exit 0xC000001D (STATUS_ILLEGAL_INSTRUCTION)")),
                    row("a plain exit code says nothing", List.of(exit(1, null, null, ExitStatus.Kind.EXIT_CODE)), List.of()));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.ExitStatusRule()), facts)).isEqualTo(expected);
        }
    }

    @Nested
    class DecisiveFrame {
        static final PythonException.Frame USER = new PythonException.Frame("/home/me/train.py", 12, "<module>");
        static final PythonException.Frame LINEAR = new PythonException.Frame(
                "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py", 114, "forward");
        static final PythonException.Frame CALL = new PythonException.Frame(
                "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", 1501, "_call_impl");

        static Stream<Arguments> table() {
            return Stream.of(
                    row("the innermost frame that fails, without its line", List.of(exception("AssertionError", null, USER, LINEAR, CALL)),
                            List.of("AssertionError", "in torch/nn/modules/linear.py forward")),
                    row("a message decides alone", List.of(exception("AssertionError", "Torch not compiled with CUDA enabled", USER, LINEAR)),
                            List.of("AssertionError: Torch not compiled with CUDA enabled")),
                    row("a script outside site-packages by its file name", List.of(exception("KeyError", null, USER)),
                            List.of("KeyError", "in train.py <module>")));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.FinalException(), new GroupSignature.DecisiveFrame()), facts))
                    .isEqualTo(expected);
        }
    }

    @Nested
    class TooGeneric {
        static Stream<Arguments> table() {
            ExitStatus overrun = exit(-1073740791, "0xC0000409", "STATUS_STACK_BUFFER_OVERRUN", ExitStatus.Kind.NTSTATUS);
            return Stream.of(
                    row("a bare abort makes no group", List.of(overrun), List.of()),
                    row("an abort beside a decisive line stays",
                            List.of(overrun, lib("zlibwapi.dll", 1, "Could not locate zlibwapi.dll")),
                            List.of("cannot load zlibwapi.dll", "exit 0xC0000409 (STATUS_STACK_BUFFER_OVERRUN)")),
                    row("a specific exit status alone stays", List.of(exit(4, null, "SIGILL", ExitStatus.Kind.SIGNAL)),
                            List.of("exit 4 (SIGILL)")));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("table")
        void parts(String what, List<Fact> facts, List<String> expected) {
            assertThat(GroupSignatureTest.parts(List.of(new GroupSignature.LibraryLoads(), new GroupSignature.ExitStatusRule(),
                    new GroupSignature.TooGeneric()), facts)).isEqualTo(expected);
        }
    }

    @Test
    void aRuleThatThrowsBecomesANoteAndTheOthersGoOn() {
        GroupSignature.Rule broken = new GroupSignature.Rule() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public boolean applies(GroupSignature.Work w) {
                return true;
            }

            @Override
            public void apply(GroupSignature.Work w) {
                throw new IllegalStateException("boom");
            }
        };
        GroupSignature.Result r = GroupSignature.run(List.of(broken, new GroupSignature.StatusCodes()), List.of(code("cudaErrorAssert")),
                List.of(), SignatureLists.shipped());
        assertThat(r.parts()).containsExactly("cudaErrorAssert");
        assertThat(r.notes()).anyMatch(n -> n.startsWith("broken: failed") && n.contains("boom"));
    }

    @Test
    void theKeyDependsOnTheVersionAndTheParts() {
        assertThat(GroupSignature.key(List.of())).isNull();
        assertThat(GroupSignature.key(List.of("a", "b"))).hasSize(12).isNotEqualTo(GroupSignature.key(List.of("b", "a")));
        assertThat(GroupSignature.key(List.of("RuntimeError: x"))).isEqualTo(GroupSignature.key(List.of("runtimeerror: X")));
    }

    @Test
    void aStoredSignatureOfAnOlderVersionJoinsNoGroupUntilComputedAgain() throws Exception {
        String v1 = "{\"terms\":[{\"key\":\"exception:runtimeerror\",\"label\":\"RuntimeError\",\"specific\":true}],\"text\":\"x\"}";
        CrashSignature old = dev.crashlab.fact.Facts.json().readValue(v1, CrashSignature.class);
        assertThat(old.version()).isZero();
        assertThat(old.stale()).isTrue();
        assertThat(old.groupKey()).isNull();
        CrashSignature now = CrashSignature.of("b", List.of(), List.of(exception("RuntimeError", "CUDA error: invalid device ordinal")), null);
        assertThat(now.version()).isEqualTo(GroupSignature.VERSION);
        CrashSignature back = dev.crashlab.fact.Facts.json().readValue(dev.crashlab.fact.Facts.json().writeValueAsString(now), CrashSignature.class);
        assertThat(back).isEqualTo(now);
        assertThat(back.groupKey()).isNotNull();
        assertThat(back.groupLabel()).isEqualTo("RuntimeError: CUDA error: invalid device ordinal");
    }
}
