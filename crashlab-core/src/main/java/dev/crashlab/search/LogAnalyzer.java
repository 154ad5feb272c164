package dev.crashlab.search;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;

/**
 * Analyses crash logs and KB articles alike: {@link LogTokenizer} keeps file names, codes and paths whole,
 * {@link CompoundPartsFilter} adds their parts, {@link NumberMaskFilter} masks numbers that are not codes,
 * then case is folded.
 */
public final class LogAnalyzer extends Analyzer {

    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
        Tokenizer source = new LogTokenizer();
        TokenStream s = new CompoundPartsFilter(source);
        s = new NumberMaskFilter(s);
        s = new LowerCaseFilter(s);
        return new TokenStreamComponents(source, s);
    }
}
