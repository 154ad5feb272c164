package dev.crashlab.crashes.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** Crash groups, their correlations, confirming a group, trends and export over HTTP on the real database. */
@QuarkusTest
class CrashGroupApiTest {

    // our nvidia-smi fixture: driver 550.127.05, an RTX 4070 and an RTX A4000
    static final String NVIDIA_SMI;

    static {
        try {
            NVIDIA_SMI = java.nio.file.Files.readString(java.nio.file.Path.of(
                    "crashlab-core/src/test/resources/fixtures/nvidia-smi-table/modern-550-two-gpus.txt"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }


    static long upload(String name, String lib, boolean withSmi) {
        Zips z = Zips.zip().text("crash.log", PastCrashesApiTest.log(lib, "train.py"));
        if (withSmi) {
            z.text("nvidia-smi.txt", NVIDIA_SMI);
        }
        long id = given().multiPart("file", name, z.build(), "application/zip").when().post("/api/bundles").then().statusCode(201)
                .extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id); // read and diagnosed in the background
        return id;
    }

    static JsonPath search(String q) {
        return given().queryParam("q", q).queryParam("limit", 50).when().get("/api/bundles/search").then().statusCode(200)
                .extract().jsonPath();
    }

    @Test
    void aGroupListsItsBundlesSaysWhatSetsItApartAndCanBeConfirmedAtOnce() {
        String lib = PastCrashesApiTest.lib();
        long a = upload("a.zip", lib, true);
        long b = upload("b.zip", lib, true);
        long c = upload("c.zip", lib, true);
        long other = upload("other.zip", PastCrashesApiTest.lib(), false);

        JsonPath found = search("lib:" + lib);
        assertThat(found.getList("hits.bundleId", Long.class)).containsExactlyInAnyOrder(a, b, c);
        List<String> keys = found.getList("hits.group", String.class);
        assertThat(keys).doesNotContainNull().containsOnly(keys.getFirst());
        String key = keys.getFirst();
        assertThat(search("lib:" + lib).getList("hits.gpu", String.class)).containsOnly("NVIDIA GeForce RTX 4070");
        assertThat(search("group:" + key).getList("hits.bundleId", Long.class)).containsExactlyInAnyOrder(a, b, c).doesNotContain(other);

        List<Map<String, Object>> groups = given().when().get("/api/groups?min=3").then().statusCode(200).extract().jsonPath().getList("");
        Map<String, Object> g = groups.stream().filter(x -> key.equals(x.get("key"))).findFirst().orElseThrow();
        assertThat(((Number) g.get("count")).longValue()).isEqualTo(3);
        assertThat((String) g.get("label")).contains(lib);
        assertThat(((Number) g.get("signatureVersion")).intValue()).isEqualTo(dev.crashlab.crashes.CrashSignature.VERSION);
        assertThat((List<?>) g.get("signature")).anyMatch(p -> p.toString().contains(lib));
        assertThat((List<?>) g.get("signatureNotes")).anyMatch(n -> n.toString().startsWith("library-loads: added"));
        assertThat((List<?>) g.get("daily")).hasSize(CrashGroupService.SPARK_DAYS);
        assertThat(((Number) ((List<?>) g.get("daily")).getLast()).intValue()).isEqualTo(3); // all three today

        JsonPath page = given().when().get("/api/groups/" + key).then().statusCode(200).extract().jsonPath();
        assertThat(page.getLong("group.count")).isEqualTo(3);
        assertThat(page.getList("bundles.bundleId", Long.class)).containsExactlyInAnyOrder(a, b, c);
        List<Map<String, Object>> corr = page.getList("correlations");
        assertThat(corr).isNotEmpty();
        double previous = Double.MAX_VALUE;
        for (Map<String, Object> x : corr) {
            double diff = Math.abs(((Number) x.get("groupShare")).doubleValue() - ((Number) x.get("overallShare")).doubleValue());
            assertThat(diff).isLessThanOrEqualTo(previous + 1e-9);
            previous = diff;
        }
        Map<String, Object> driver = corr.stream().filter(x -> "driver".equals(x.get("dimension")) && "550.127".equals(x.get("value")))
                .findFirst().orElseThrow(() -> new AssertionError(corr.toString()));
        assertThat(((Number) driver.get("groupShare")).doubleValue()).isEqualTo(1.0);
        assertThat(((Number) driver.get("inGroup")).longValue()).isEqualTo(3);
        assertThat(((Number) driver.get("overallShare")).doubleValue()).isLessThan(1.0); // 'other' has no driver

        given().when().get("/api/groups/0123456789ab").then().statusCode(404).contentType(containsString("application/problem+json"));
        given().when().get("/api/groups/nothex").then().statusCode(404);

        String article = given().when().get("/api/kb").then().statusCode(200).extract().jsonPath().getString("articles[0].id");
        given().contentType("application/json").body(Map.of("articleId", "no-such-article")).when().post("/api/groups/" + key + "/resolution")
                .then().statusCode(400).contentType(containsString("application/problem+json"));
        given().contentType("application/json").body(Map.of("articleId", article, "note", "the whole group")).when()
                .post("/api/groups/" + key + "/resolution").then().statusCode(200).body("confirmed", org.hamcrest.Matchers.is(3));
        assertThat(search("lib:" + lib + " confirmed:yes").getLong("total")).isEqualTo(3);
        assertThat(search("lib:" + lib + " confirmed:yes").getList("hits.likelyCause.id", String.class)).containsOnly(article);
    }

    @Test
    void trendsCountCrashesPerDayByCause() {
        String lib = PastCrashesApiTest.lib();
        upload("t1.zip", lib, false);
        upload("t2.zip", lib, false);
        JsonPath t = given().queryParam("q", "lib:" + lib).queryParam("days", 7).when().get("/api/bundles/trends").then().statusCode(200)
                .extract().jsonPath();
        assertThat(t.getList("days", String.class)).hasSize(7).last().isEqualTo(LocalDate.now(ZoneOffset.UTC).toString());
        assertThat(t.getLong("total")).isEqualTo(2);
        List<List<Integer>> counts = t.getList("series.counts");
        assertThat(counts.stream().mapToInt(List::getLast).sum()).isEqualTo(2);
        given().queryParam("days", 0).when().get("/api/bundles/trends").then().statusCode(400);
        given().queryParam("q", "driver:<x").when().get("/api/bundles/trends").then().statusCode(400);
        assertThat(given().when().get("/api/bundles/trends").then().statusCode(200).extract().jsonPath().getLong("total"))
                .isGreaterThanOrEqualTo(2);
    }

    @Test
    void anySearchExportsAsCsvAndJson() {
        String lib = PastCrashesApiTest.lib();
        long a = upload("=cmd, \"quoted\".zip", lib, true);
        long b = upload("plain.zip", lib, false);
        Response csv = given().queryParam("q", "lib:" + lib).when().get("/api/bundles/search/export");
        csv.then().statusCode(200).contentType(containsString("text/csv")).header("Content-Disposition", containsString("attachment"));
        List<String> lines = csv.asString().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.getFirst()).startsWith("bundleId,name,uploadedAt,causeId,cause,confirmed,group,gpu");
        assertThat(lines).anyMatch(l -> l.startsWith(a + ",\"'=cmd, \"\"quoted\"\".zip\","));
        assertThat(lines).anyMatch(l -> l.startsWith(b + ",plain.zip,") && l.contains(",no,"));
        JsonPath json = given().queryParam("q", "lib:" + lib).queryParam("format", "json").when().get("/api/bundles/search/export")
                .then().statusCode(200).header("Content-Disposition", containsString("crashes.json")).extract().jsonPath();
        assertThat(json.getList("bundleId", Long.class)).containsExactlyInAnyOrder(a, b);
        assertThat(json.getList("gpu", String.class)).contains("NVIDIA GeForce RTX 4070");
        given().queryParam("q", "lib:" + lib).queryParam("format", "xml").when().get("/api/bundles/search/export").then().statusCode(400);
        given().queryParam("q", "(").when().get("/api/bundles/search/export").then().statusCode(400)
                .contentType(containsString("application/problem+json"));
    }
}
