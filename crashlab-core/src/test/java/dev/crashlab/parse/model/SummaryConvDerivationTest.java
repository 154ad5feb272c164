package dev.crashlab.parse.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a summary row's parameter count and shapes imply, and what they leave open. */
class SummaryConvDerivationTest {

    private static List<Integer> shape(Integer... dims) {
        return Arrays.asList(dims);
    }

    private static ConvDraft row(String kind, int rank, List<Integer> output) {
        ConvDraft d = new ConvDraft(kind, rank);
        d.outputShape = output;
        return d;
    }

    @Test
    void kernelStridesAndPaddingFollowFromParamsAndShapes() {
        ConvDraft d = row("Conv2D", 2, shape(null, 14, 14, 64));
        SummaryConvDerivation.derive(d, 51264L, shape(null, 28, 28, 32), null);
        assertThat(d.kernel).containsExactly(5, 5);
        assertThat(d.strides).containsExactly(2, 2);
        assertThat(d.padding).isEqualTo("same");
        assertThat(d.inChannels).isEqualTo(32);
        assertThat(d.filters).isEqualTo(64);
        assertThat(d.inferred).contains("kernel", "strides", "padding", "dataFormat").doesNotContain("inputShape");
    }

    @Test
    void aConvolutionWithoutBiasStillFits() {
        ConvDraft d = row("Conv2D", 2, shape(null, 26, 26, 8));
        SummaryConvDerivation.derive(d, 72L, shape(null, 28, 28, 1), null);
        assertThat(d.kernel).containsExactly(3, 3);
        assertThat(d.padding).isEqualTo("valid");
    }

    @Test
    void channelsFirstIsChosenWhereOnlyItFits() {
        ConvDraft d = row("Conv3D", 3, shape(null, 16, 16, 112, 112));
        SummaryConvDerivation.derive(d, 448L, shape(null, 1, 16, 112, 112), null);
        assertThat(d.dataFormat).isEqualTo("channels_first");
        assertThat(d.kernel).containsExactly(3, 3, 3);
        assertThat(d.inChannels).isEqualTo(1);
    }

    @Test
    void depthwiseMultiplierAndGroupsFollowFromChannels() {
        ConvDraft d = row("DepthwiseConv2D", 2, shape(null, 62, 62, 64));
        SummaryConvDerivation.derive(d, 640L, shape(null, 64, 64, 32), null);
        assertThat(d.groups).isEqualTo(32);
        assertThat(d.depthMultiplier).isEqualTo(2);
        assertThat(d.kernel).containsExactly(3, 3);
        assertThat(d.padding).isEqualTo("valid");
    }

    @Test
    void aFirstRowAssumesSamePaddingAndAnImageChannelCount() {
        ConvDraft d = row("Conv2D", 2, shape(null, 125, 125, 32));
        SummaryConvDerivation.derive(d, 320L, null, null);
        assertThat(d.inChannels).isEqualTo(1);
        assertThat(d.inputShape).isEqualTo(shape(null, 125, 125, 1));
        assertThat(d.inferred).contains("inChannels", "inputShape");
    }

    @Test
    void numbersThatFitNoReadingLeaveTheKernelUnknown() {
        ConvDraft d = row("Conv2D", 2, shape(null, 24, 24, 7));
        SummaryConvDerivation.derive(d, 1000L, shape(null, 24, 24, 32), null);
        assertThat(d.kernel).isNull();
        assertThat(d.inChannels).isNull();
        assertThat(d.filters).isEqualTo(7);
    }

    @Test
    void aCutRowWithoutParamsDerivesNothing() {
        ConvDraft d = row("Conv2D", 2, shape(null, 24, 24, 7));
        SummaryConvDerivation.derive(d, null, shape(null, 24, 24, 32), null);
        assertThat(d.kernel).isNull();
    }
}
