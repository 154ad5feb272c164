package dev.crashlab.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.junit.jupiter.api.Test;

/** The domain analyzer's token streams: compounds whole and in parts, codes kept, other numbers masked, case folded. */
class LogAnalyzerTest {

    final Analyzer analyzer = new LogAnalyzer();

    /** Tokens as "term" or "term@0" when stacked on the previous position. */
    List<String> tokens(String text) throws IOException {
        List<String> out = new ArrayList<>();
        try (TokenStream ts = analyzer.tokenStream("body", text)) {
            CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
            PositionIncrementAttribute pi = ts.addAttribute(PositionIncrementAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                out.add(pi.getPositionIncrement() == 0 ? t + "@0" : t.toString());
            }
            ts.end();
        }
        return out;
    }

    @Test
    void dllNamesStayWholeAndSplitIntoParts() throws IOException {
        assertThat(tokens("Could not load 'cudart64_110.dll';")).containsExactly(
                "could", "not", "load", "cudart64_110.dll", "cudart64@0", "cudart@0", "110@0", "dll@0");
    }

    @Test
    void statusNamesAndCppScopes() throws IOException {
        assertThat(tokens("CUDNN_STATUS_INTERNAL_ERROR")).containsExactly(
                "cudnn_status_internal_error", "cudnn@0", "status@0", "internal@0", "error@0");
        assertThat(tokens("std::bad_alloc")).containsExactly("std::bad_alloc", "std@0", "bad@0", "alloc@0");
        assertThat(tokens("C:\\Program\\cuda\\bin")).containsExactly("c:\\program\\cuda\\bin", "c@0", "program@0", "cuda@0", "bin@0");
    }

    @Test
    void ntstatusCodesAreKeptAndDecimalsGainTheirHexForm() throws IOException {
        assertThat(tokens("exit code 0xC0000409")).containsExactly("exit", "code", "0xc0000409");
        assertThat(tokens("exit code -1073740791")).containsExactly("exit", "code", "-1073740791", "0xc0000409@0");
        assertThat(tokens("errorcode 3221225501")).containsExactly("errorcode", "3221225501", "0xc000001d@0");
    }

    @Test
    void numbersThatAreNotCodesAreMasked() throws IOException {
        assertThat(tokens("Xid 79 pid 123456 at 0x00007ff6a1b2c3d4 on 2023-01-05 12:30:01")).containsExactly(
                "xid", "79", "pid", "<num>", "at", "<addr>", "on", "<time>", "<time>");
    }

    @Test
    void offsetsPointAtTheOriginalText() throws IOException {
        String text = "load cudart64_110.dll.";
        try (TokenStream ts = analyzer.tokenStream("body", text)) {
            CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
            OffsetAttribute off = ts.addAttribute(OffsetAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                assertThat(text.substring(off.startOffset(), off.endOffset()).toLowerCase()).isEqualTo(t.toString());
            }
            ts.end();
        }
    }
}
