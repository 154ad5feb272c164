package dev.crashlab.parse.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Output lengths against values worked out by hand from the Keras and PyTorch formulas. */
class ConvArithmeticTest {

    @ParameterizedTest(name = "conv in={0} k={1} s={2} d={3} {4} -> {5}")
    @CsvSource({
        "28, 3, 1, 1, valid, 26",
        "28, 3, 1, 1, same, 28",
        "299, 3, 2, 1, valid, 149",
        "28, 5, 2, 1, same, 14",
        "7, 5, 2, 1, same, 4",
        "16, 4, 2, 1, causal, 8",
        "16, 3, 1, 2, same, 16",
        "35, 3, 1, 2, valid, 31",
        "10, 3, 1, 1, full, 12",
        "2, 5, 1, 1, valid, 0",
    })
    void convolution(int in, int k, int s, int d, String padding, int out) {
        assertThat(ConvArithmetic.conv(in, k, s, d, padding)).isEqualTo(out);
    }

    @ParameterizedTest(name = "transposed in={0} k={1} s={2} {3} -> {4}")
    @CsvSource({
        "7, 3, 1, same, 7",
        "7, 5, 2, same, 14",
        "14, 2, 2, valid, 28",
        "7, 3, 2, valid, 15",
        "7, 3, 2, full, 11",
    })
    void transposedConvolution(int in, int k, int s, String padding, int out) {
        assertThat(ConvArithmetic.transposed(in, k, s, 1, padding, null)).isEqualTo(out);
    }

    @ParameterizedTest(name = "pool in={0} p={1} s={2} {3} -> {4}")
    @CsvSource({
        "26, 2, 2, valid, 13",
        "147, 3, 2, same, 74",
        "540, 2, 2, same, 270",
        "125, 7, 7, valid, 17",
        "2, 3, 1, valid, 0",
    })
    void pooling(int in, int p, int s, String padding, int out) {
        assertThat(ConvArithmetic.pool(in, p, s, padding)).isEqualTo(out);
    }

    @ParameterizedTest(name = "torch in={0} k={1} s={2} d={3} pad={4} -> {5}")
    @CsvSource({
        "256, 5, 1, 1, 0, 252",
        "45, 3, 1, 1, 1, 45",
        "3000, 3, 2, 1, 1, 1500",
        "56, 3, 1, 2, 2, 56",
    })
    void torchConvolution(int in, int k, int s, int d, int pad, int out) {
        assertThat(ConvArithmetic.torchConv(in, k, s, d, pad, pad)).isEqualTo(out);
    }

    @ParameterizedTest(name = "unknown: {0}")
    @CsvSource({"reflect", "SAME", "explicit"})
    void unknownPaddingModesAreUnknownNotGuessed(String padding) {
        assertThat(ConvArithmetic.conv(28, 3, 1, 1, padding)).isNull();
        assertThat(ConvArithmetic.pool(28, 2, 2, padding)).isNull();
    }
}
