package dev.crashlab.parse.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ExitStatus.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The exit-code table against values checked by hand. */
class ExitCodesTest {

    @Test
    void theSignedTheUnsignedAndTheHexFormsAreOneStatus() {
        // 0xC0000409 = 3221226505 = 3221226505 - 2^32 = -1073740791
        assertThat(0xC0000409L).isEqualTo(3221226505L);
        assertThat(3221226505L - (1L << 32)).isEqualTo(-1073740791L);
        assertThat(ExitCodes.exitCode(-1073740791L)).isEqualTo(ExitCodes.exitCode(3221226505L));
        assertThat(ExitCodes.exitCode(-1073740791L).name()).isEqualTo("STATUS_STACK_BUFFER_OVERRUN");
        assertThat(ExitCodes.exitCode(-1073740791L).hex()).isEqualTo("0xC0000409");
    }

    @ParameterizedTest
    @CsvSource({
        "-1073741819, 0xC0000005, STATUS_ACCESS_VIOLATION",
        "3221225477, 0xC0000005, STATUS_ACCESS_VIOLATION",
        "3221225501, 0xC000001D, STATUS_ILLEGAL_INSTRUCTION",
        "-1073741795, 0xC000001D, STATUS_ILLEGAL_INSTRUCTION",
        "3221225622, 0xC0000096, STATUS_PRIVILEGED_INSTRUCTION",
        "-1073741571, 0xC00000FD, STATUS_STACK_OVERFLOW",
        "3221225781, 0xC0000135, STATUS_DLL_NOT_FOUND",
        "3221225785, 0xC0000139, STATUS_ENTRYPOINT_NOT_FOUND",
        "-1073740940, 0xC0000374, STATUS_HEAP_CORRUPTION",
        "3221226356, 0xC0000374, STATUS_HEAP_CORRUPTION",
        "3221226519, 0xC0000417, STATUS_INVALID_CRUNTIME_PARAMETER",
        "-529697949, 0xE06D7363, MSVC_CPP_EXCEPTION",
        "2147483651, 0x80000003, STATUS_BREAKPOINT",
        "-2147483645, 0x80000003, STATUS_BREAKPOINT",
    })
    void decodesNtStatusValues(long value, String hex, String name) {
        ExitCodes.Decoded d = ExitCodes.exitCode(value);
        assertThat(d.kind()).isEqualTo(Kind.NTSTATUS);
        assertThat(d.hex()).isEqualTo(hex);
        assertThat(d.name()).isEqualTo(name);
        assertThat(d.meaning()).isNotBlank();
    }

    @ParameterizedTest
    @CsvSource({"132, SIGILL", "134, SIGABRT", "135, SIGBUS", "137, SIGKILL", "139, SIGSEGV", "-11, SIGSEGV", "-9, SIGKILL"})
    void decodesSignalsAsExitCodes(long value, String name) {
        ExitCodes.Decoded d = ExitCodes.exitCode(value);
        assertThat(d.kind()).isEqualTo(Kind.SIGNAL);
        assertThat(d.name()).isEqualTo(name);
    }

    @Test
    void knowsTheSignalNumbers() {
        assertThat(ExitCodes.signalNumber("SIGILL")).isEqualTo(4);
        assertThat(ExitCodes.signalNumber("SIGABRT")).isEqualTo(6);
        assertThat(ExitCodes.signalNumber("SIGBUS")).isEqualTo(7);
        assertThat(ExitCodes.signalNumber("SIGKILL")).isEqualTo(9);
        assertThat(ExitCodes.signalNumber("SIGSEGV")).isEqualTo(11);
        assertThat(134 - 128).isEqualTo(ExitCodes.signalNumber("SIGABRT"));
    }

    @Test
    void plainExitCodesAndUnknownStatusesStayUndecoded() {
        assertThat(ExitCodes.exitCode(1).kind()).isEqualTo(Kind.EXIT_CODE);
        assertThat(ExitCodes.exitCode(1).name()).isNull();
        assertThat(ExitCodes.exitCode(126).kind()).isEqualTo(Kind.EXIT_CODE);
        ExitCodes.Decoded unknown = ExitCodes.exitCode(0xC0001234L);
        assertThat(unknown.kind()).isEqualTo(Kind.NTSTATUS);
        assertThat(unknown.name()).isNull();
        assertThat(ExitCodes.size()).isGreaterThanOrEqualTo(16);
    }
}
