package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.conv.ConvProblem.DType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Checks that the host and the kernels agree on what crosses between them (the argument struct, the tile
 * sizes, the kernel names) by reading the CUDA sources and the committed PTX.
 */
class KernelSourceContractTest {

    static final Path CUDA = Path.of("crashlab-conv/src/main/cuda");

    static String withoutComments(String source) {
        return source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
    }

    @Test
    void theArgumentStructHasTheFieldsTheHostPacksInItsOrder() throws IOException {
        String source = withoutComments(Files.readString(CUDA.resolve("conv_common.cuh")));
        Matcher body = Pattern.compile("struct\\s+ConvGeom\\s*\\{([^}]*)}").matcher(source);
        assertThat(body.find()).as("struct ConvGeom in conv_common.cuh").isTrue();
        List<String> fields = new ArrayList<>();
        for (String declaration : body.group(1).split(";")) {
            String d = declaration.trim();
            if (d.isEmpty()) {
                continue;
            }
            assertThat(d).as("every field is a 32-bit int").startsWith("int ");
            for (String name : d.substring(4).split(",")) {
                fields.add(name.trim());
            }
        }
        assertThat(fields).isEqualTo(ConvGeometry.KERNEL_FIELDS);
    }

    @Test
    void theTileSizesAreTheOnesThePlannerAssumes() throws IOException {
        String source = withoutComments(Files.readString(CUDA.resolve("conv_common.cuh")));
        assertThat(constant(source, "TILE_M")).isEqualTo(ConvLaunchPlan.TILE_M);
        assertThat(constant(source, "TILE_N")).isEqualTo(ConvLaunchPlan.TILE_N);
        assertThat(constant(source, "TILE_K")).isEqualTo(ConvLaunchPlan.TILE_K);
        assertThat(constant(source, "THREADS")).isEqualTo(ConvLaunchPlan.THREADS);
    }

    static int constant(String source, String name) {
        Matcher m = Pattern.compile("constexpr\\s+int\\s+" + name + "\\s*=\\s*(\\d+)\\s*;").matcher(source);
        assertThat(m.find()).as("constexpr int %s", name).isTrue();
        return Integer.parseInt(m.group(1));
    }

    @Test
    void everyKernelTheHostLaunchesIsInItsModuleWithTheStructFirst() {
        for (KernelPass pass : KernelPass.values()) {
            String ptx = new String(PtxModules.text(pass.module), StandardCharsets.UTF_8);
            for (DType t : DType.values()) {
                String kernel = pass.kernel(ConvLaunchPlan.typeSuffix(t));
                assertThat(ptx).as("%s in %s.ptx", kernel, pass.module).contains(".entry " + kernel + "(");
                // the struct by value, then three 64-bit pointers
                Pattern params = Pattern.compile("\\.entry " + kernel + "\\(\\s*\\.param \\.align 4 \\.b8 " + kernel
                        + "_param_0\\[(\\d+)],\\s*\\.param \\.u64 \\w+,\\s*\\.param \\.u64 \\w+,\\s*\\.param \\.u64 \\w+\\s*\\)");
                Matcher m = params.matcher(ptx);
                assertThat(m.find()).as("parameters of %s", kernel).isTrue();
                assertThat(Integer.parseInt(m.group(1))).isEqualTo(4 * ConvGeometry.KERNEL_FIELDS.size());
            }
        }
        String filter = new String(PtxModules.text(KernelPass.BACKWARD_FILTER.module), StandardCharsets.UTF_8);
        for (String rounding : List.of("convert_f32_to_f16", "convert_f32_to_bf16")) {
            assertThat(filter).contains(".entry " + rounding + "(");
            assertThat(Pattern.compile("\\.entry " + rounding + "\\(\\s*\\.param \\.u64 \\w+,\\s*\\.param \\.u64 \\w+,"
                    + "\\s*\\.param \\.u64 \\w+\\s*\\)").matcher(filter).find()).as("parameters of %s", rounding).isTrue();
        }
    }

    @Test
    void everyModuleDeclaresPtxIsa80ForSm75() throws IOException {
        assertThat(PtxModules.NAMES).hasSize(3);
        try (var sources = Files.list(CUDA)) {
            List<String> cu = sources.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".cu"))
                    .map(n -> n.substring(0, n.length() - 3)).sorted().toList();
            assertThat(cu).as("one module per source").containsExactlyInAnyOrderElementsOf(PtxModules.NAMES);
        }
        for (String module : PtxModules.NAMES) {
            String ptx = new String(PtxModules.text(module), StandardCharsets.UTF_8);
            assertThat(ptx).as(module).contains("\n.version 8.0\n.target sm_75\n.address_size 64\n");
            assertThat(ptx).as("no machine-specific comments in %s", module).doesNotContain("Compiler Build ID");
        }
    }
}
