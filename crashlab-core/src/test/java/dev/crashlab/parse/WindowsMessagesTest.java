package dev.crashlab.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.Charset;
import org.junit.jupiter.api.Test;

/** A Windows system message in the system's language reads as the English text the rules are written for. */
class WindowsMessagesTest {

    @Test
    void aLocalisedMessageReadsInEnglish() {
        assertThat(WindowsMessages.inEnglish("OSError: [WinError 126] Das angegebene Modul wurde nicht gefunden. Error loading \"x.dll\""))
                .isEqualTo("OSError: [WinError 126] The specified module could not be found. Error loading \"x.dll\"");
        assertThat(WindowsMessages.inEnglish("ImportError: DLL load failed: Le fichier de pagination est insuffisant pour terminer cette op\u00e9ration."))
                .isEqualTo("ImportError: DLL load failed: The paging file is too small for this operation to complete.");
        assertThat(WindowsMessages.inEnglish("OSError: [WinError 193] %1 n\u2019est pas une application Win32 valide."))
                .isEqualTo("OSError: [WinError 193] %1 is not a valid Win32 application.");
    }

    @Test
    void aChineseConsolesGbkBytesReadAsWindows1252StillReadInEnglish() {
        String zh = "OSError: [WinError 1455] \u9875\u9762\u6587\u4ef6\u592a\u5c0f\uff0c\u65e0\u6cd5\u5b8c\u6210\u64cd\u4f5c\u3002 Error loading";
        String asRead = new String(zh.getBytes(Charset.forName("GBK")), Charset.forName("windows-1252"));
        assertThat(WindowsMessages.inEnglish(asRead))
                .isEqualTo("OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading");
        assertThat(WindowsMessages.inEnglish(zh)).contains("The paging file is too small");
    }

    @Test
    void aLineWithoutOneIsTheSameInstance() {
        String line = "RuntimeError: CUDA error: out of memory";
        assertThat(WindowsMessages.inEnglish(line)).isSameAs(line);
    }
}
