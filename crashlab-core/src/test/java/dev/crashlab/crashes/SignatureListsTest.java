package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The curated signature lists load, and a bad line fails with its file and line. */
class SignatureListsTest {

    @Test
    void theShippedListsLoad() {
        SignatureLists l = SignatureLists.shipped();
        assertThat(l.informationalLines()).isNotEmpty();
        assertThat(l.irrelevantFrames()).isNotEmpty();
        assertThat(l.wrapperExceptions()).contains("ProcessRaisedException");
        assertThat(l.genericExits()).contains("SIGABRT", "0XC0000409");
        assertThat(l.normalizers()).isNotEmpty();
        assertThat(l.libraryComponents()).isNotEmpty();
    }

    @Test
    void aBadRegexNamesItsFileAndLine() {
        assertThatThrownBy(() -> SignatureLists.parse("irrelevant-frames.txt", "# comment\n\nfoo\\.py:bar$\n(unclosed\n",
                SignatureLists::regex))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("irrelevant-frames.txt:4: not a regular expression");
    }

    @Test
    void aDuplicateNamesItsLine() {
        assertThatThrownBy(() -> SignatureLists.parse("wrapper-exceptions.txt", "A\nB\nA\n", SignatureLists::word))
                .hasMessage("wrapper-exceptions.txt:3: the entry is listed twice: A");
    }

    @Test
    void entriesOfTheWrongShapeNameTheirLine() {
        assertThatThrownBy(() -> SignatureLists.parse("generic-exit-codes.txt", "SIGABRT\ntwo words\n", SignatureLists::word))
                .hasMessageStartingWith("generic-exit-codes.txt:2: one name expected");
        assertThatThrownBy(() -> SignatureLists.parse("message-normalizers.txt", "\\d+ -> <n>\n", SignatureLists::normalizer))
                .hasMessageStartingWith("message-normalizers.txt:1: \"regex => replacement\" expected");
        assertThatThrownBy(() -> SignatureLists.parse("message-normalizers.txt", "\\d+ => $1\n", SignatureLists::normalizer))
                .hasMessageStartingWith("message-normalizers.txt:1: a replacement is plain text");
        assertThatThrownBy(() -> SignatureLists.parse("library-components.txt", "^libcudnn\\.so\\.\\d+ cudnn\n",
                SignatureLists::libraryComponent))
                .hasMessageStartingWith("library-components.txt:1: the regex must capture the major version as group 1");
    }
}
