package dev.crashlab.search;

import org.apache.lucene.analysis.util.CharTokenizer;

/**
 * Splits log and article text into tokens that keep file names, codes and paths whole
 * ({@code cudart64_110.dll}, {@code 0xC0000409}, {@code tensorflow/core/kernels/conv_ops.cc:1106},
 * {@code -1073740791}); {@link CompoundPartsFilter} then adds their parts.
 */
public final class LogTokenizer extends CharTokenizer {

    @Override
    protected boolean isTokenChar(int c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == ':' || c == '/' || c == '\\' || c == '-' || c == '+';
    }
}
