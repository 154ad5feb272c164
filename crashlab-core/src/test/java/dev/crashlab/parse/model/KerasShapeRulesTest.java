package dev.crashlab.parse.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Output shapes of the layers between convolutions, and unknown (null) for what is not known. */
class KerasShapeRulesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<Integer> out(String className, String config, List<List<Integer>> inputs) throws Exception {
        JsonNode c = JSON.readTree(config);
        return KerasShapeRules.output(className, c, inputs);
    }

    private static List<Integer> shape(Integer... dims) {
        return Arrays.asList(dims);
    }

    @Test
    void poolingPaddingCroppingAndUpSampling() throws Exception {
        assertThat(out("MaxPooling2D", "{\"pool_size\": [2, 2], \"padding\": \"valid\"}", List.of(shape(null, 27, 27, 8))))
                .isEqualTo(shape(null, 13, 13, 8));
        assertThat(out("ZeroPadding2D", "{\"padding\": [[0, 1], [0, 1]]}", List.of(shape(null, 224, 224, 3))))
                .isEqualTo(shape(null, 225, 225, 3));
        assertThat(out("ZeroPadding1D", "{\"padding\": 2}", List.of(shape(null, 10, 4)))).isEqualTo(shape(null, 14, 4));
        assertThat(out("Cropping2D", "{\"cropping\": [[1, 1], [2, 0]], \"data_format\": \"channels_first\"}",
                List.of(shape(null, 3, 16, 16)))).isEqualTo(shape(null, 3, 14, 14));
        assertThat(out("UpSampling2D", "{\"size\": [2, 3]}", List.of(shape(4, 7, 7, 1)))).isEqualTo(shape(4, 14, 21, 1));
        assertThat(out("GlobalAveragePooling2D", "{}", List.of(shape(null, 7, 7, 1280)))).isEqualTo(shape(null, 1280));
    }

    @Test
    void mergesAndReshapes() throws Exception {
        assertThat(out("Concatenate", "{\"axis\": -1}", List.of(shape(null, 8, 8, 64), shape(null, 8, 8, 32))))
                .isEqualTo(shape(null, 8, 8, 96));
        assertThat(out("Merge", "{\"mode\": \"sum\"}", List.of(shape(null, 19, 19, 728), shape(null, 19, 19, 728))))
                .isEqualTo(shape(null, 19, 19, 728));
        assertThat(out("Reshape", "{\"target_shape\": [7, 7, -1]}", List.of(shape(null, 12544))))
                .isEqualTo(shape(null, 7, 7, 256));
        assertThat(out("Flatten", "{}", List.of(shape(null, 5, 5, 64)))).isEqualTo(shape(null, 1600));
        assertThat(out("Dense", "{\"units\": 10}", List.of(shape(null, 1600)))).isEqualTo(shape(null, 10));
    }

    @Test
    void unknownLayersAndUnknownInputsGiveUnknownShapes() throws Exception {
        assertThat(out("Lambda", "{}", List.of(shape(null, 8, 8, 3)))).isNull();
        assertThat(out("MaxPooling2D", "{\"pool_size\": 2}", java.util.Collections.singletonList(null))).isNull();
        assertThat(out("Flatten", "{}", List.of(shape(null, null, 8, 3)))).isNull();
        assertThat(out("Concatenate", "{\"axis\": 9}", List.of(shape(null, 8), shape(null, 8)))).isNull();
        assertThat(out("MaxPooling2D", "{\"pool_size\": [2, 2]}", List.of(shape(null, 8, 3)))).isNull();
    }
}
