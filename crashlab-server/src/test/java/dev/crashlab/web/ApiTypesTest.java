package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The UI's API types ({@code frontend/src/api-types.ts}) are generated from this server's OpenAPI document by
 * openapi-typescript ({@code frontend/api-gen}, installed from its package-lock); this test generates them again and
 * fails when they differ from the committed file. {@code scripts/api-types} (this test with
 * {@code -Dapitypes.update=true}) writes the file instead.
 */
@QuarkusTest
class ApiTypesTest {

    static final Path COMMITTED = Path.of("frontend/src/api-types.ts");
    static final Path GEN = Path.of("frontend/api-gen");
    static final Path DOCUMENT = Path.of("crashlab-server/target/openapi.json");
    static final Path GENERATED = Path.of("crashlab-server/target/api-types.ts");

    @Test
    void theCommittedApiTypesAreTheOnesTheOpenApiDocumentGives() throws Exception {
        assumeThat(onPath("node") && onPath("npm")).as("node and npm are not installed: the API types are not checked").isTrue();
        String document = given().when().get("/q/openapi?format=json").then().statusCode(200).extract().asString();
        Files.createDirectories(DOCUMENT.getParent());
        Files.writeString(DOCUMENT, document);
        if (!Files.isRegularFile(GEN.resolve("node_modules/openapi-typescript/bin/cli.js"))) {
            run(GEN, "npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"); // what package-lock.json pins, nothing else
        }
        run(GEN, "node", "node_modules/openapi-typescript/bin/cli.js", DOCUMENT.toAbsolutePath().toString(),
                "-o", GENERATED.toAbsolutePath().toString());
        String generated = Files.readString(GENERATED);
        assertThat(generated).contains("components", "DiagnosisView", "FactsView", "ArticleView");
        if (Boolean.getBoolean("apitypes.update")) {
            Files.writeString(COMMITTED, generated);
            return;
        }
        String committed = Files.exists(COMMITTED) ? Files.readString(COMMITTED) : "";
        assertThat(committed).as("frontend/src/api-types.ts differs from the OpenAPI document (generated: %s); regenerate it "
                + "with scripts/api-types and commit it", GENERATED).isEqualTo(generated);
    }

    private static boolean onPath(String tool) {
        try {
            Process p = new ProcessBuilder(tool, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(command)).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("%s timed out", String.join(" ", command)).isTrue();
        assertThat(p.exitValue()).as("%s in %s failed:%n%s", String.join(" ", command), dir, out).isZero();
    }
}
