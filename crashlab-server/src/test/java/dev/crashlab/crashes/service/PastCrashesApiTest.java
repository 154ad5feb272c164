package dev.crashlab.crashes.service;

import dev.crashlab.diagnose.service.BundleDiagnosis;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Past-crash search and similar crashes over HTTP, on the real database: bundles are uploaded, diagnosed at
 * upload, indexed, found, compared and deleted. Each test uses a library name of its own, because the database
 * is shared with the other tests.
 */
@QuarkusTest
@Tag("persistence")
class PastCrashesApiTest {

    @Inject
    CrashSearchService crashes;

    static String lib() {
        return "libcrashlabtest" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + ".so";
    }

    static String log(String lib, String script) {
        return "Traceback (most recent call last):\n  File \"" + script + "\", line 3, in <module>\n    import torch\n"
                + "OSError: " + lib + ": cannot open shared object file: No such file or directory\n";
    }

    static long upload(String name, String text) {
        long id = given().multiPart("file", name, text.getBytes(), "text/plain")
                .when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id); // diagnosed, so indexed as a past crash, in the background
        return id;
    }

    static JsonPath similar(long id) {
        return given().when().get("/api/bundles/" + id + "/similar?limit=50").then().statusCode(200).extract().jsonPath();
    }

    static JsonPath search(String q) {
        return given().queryParam("q", q).when().get("/api/bundles/search").then().statusCode(200).extract().jsonPath();
    }

    @Test
    void twoUploadsOfTheSameCrashFindEachOtherAndSayWhy() {
        String lib = lib();
        String otherLib = lib();
        long a = upload("train.log", log(lib, "train.py"));
        long b = upload("eval.log", log(lib, "evaluate.py"));
        long c = upload("other.log", log(otherLib, "train.py"));

        JsonPath s = similar(a);
        assertThat(s.getList("signature.key", String.class)).contains("lib:" + lib);
        List<Map<String, Object>> list = s.getList("similar");
        assertThat(list).isNotEmpty();
        assertThat(((Number) list.getFirst().get("bundleId")).longValue()).as(list.toString()).isEqualTo(b);
        assertThat(s.getList("similar[0].shared.key", String.class)).contains("lib:" + lib);
        assertThat(s.getString("similar[0].name")).isEqualTo("eval.log");
        assertThat(s.getDouble("similar[0].similarity")).isGreaterThan(0.0).isLessThanOrEqualTo(1.0);
        List<Long> ids = s.getList("similar.bundleId", Long.class);
        assertThat(ids).doesNotContain(a);
        int cAt = ids.indexOf(c);
        if (cAt >= 0) { // it shares the exception type, never the library
            assertThat(s.getList("similar[" + cAt + "].shared.key", String.class)).doesNotContain("lib:" + lib);
            assertThat(s.getDouble("similar[" + cAt + "].similarity")).isLessThan(s.getDouble("similar[0].similarity"));
        }

        JsonPath found = search(lib);
        assertThat(found.getLong("total")).isEqualTo(2);
        assertThat(found.getList("hits.bundleId", Long.class)).containsExactlyInAnyOrder(a, b);
        assertThat(found.getString("hits[0].snippets[0]")).contains("<mark>" + lib);

        given().when().delete("/api/bundles/" + b).then().statusCode(204);
        assertThat(similar(a).getList("similar.bundleId", Long.class)).doesNotContain(b);
        assertThat(search(lib).getList("hits.bundleId", Long.class)).containsExactly(a);
    }

    @Test
    void theIndexIsRebuiltFromTheDatabaseAndOldRowsAreSignedAgain() {
        String lib = lib();
        long a = upload("old.log", log(lib, "old.py"));
        long b = upload("new.log", log(lib, "new.py"));
        // a row written before signatures were stored
        QuarkusTransaction.requiringNew().run(() -> BundleDiagnosis.<BundleDiagnosis>findById(a).signatureJson = null);
        crashes.forget();
        assertThat(search(lib).getList("hits.bundleId", Long.class)).containsExactlyInAnyOrder(a, b);
        String stored = QuarkusTransaction.requiringNew().call(() -> BundleDiagnosis.<BundleDiagnosis>findById(a).signatureJson);
        assertThat(stored).contains("lib:" + lib);
        assertThat(similar(b).getList("similar.bundleId", Long.class)).first().isEqualTo(a);
    }

    @Test
    void aSignatureOfAnOlderVersionIsComputedAgainWhenTheIndexIsBuilt() {
        String lib = lib();
        long a = upload("v1.log", log(lib, "v1.py"));
        long b = upload("v2.log", log(lib, "v2.py"));
        // a row as version 1 stored it: specific terms, no version, no group parts
        String v1 = "{\"terms\":[{\"key\":\"exception:runtimeerror\",\"label\":\"RuntimeError\",\"specific\":true}],\"text\":\"v1\"}";
        QuarkusTransaction.requiringNew().run(() -> BundleDiagnosis.<BundleDiagnosis>findById(a).signatureJson = v1);
        crashes.forget();
        assertThat(search(lib).getList("hits.bundleId", Long.class)).containsExactlyInAnyOrder(a, b);
        String stored = QuarkusTransaction.requiringNew().call(() -> BundleDiagnosis.<BundleDiagnosis>findById(a).signatureJson);
        assertThat(CrashSearchService.fromJson(stored)).get().satisfies(sig -> {
            assertThat(sig.version()).isEqualTo(dev.crashlab.crashes.CrashSignature.VERSION);
            assertThat(sig.group()).contains("cannot load " + lib);
        });
        // computed again, it joins the group of its twin
        assertThat(search(lib).getList("hits.group", String.class)).doesNotContainNull().containsOnly(
                search(lib).getList("hits.group", String.class).getFirst());
    }

    @Test
    void badRequestsAreProblemsNotErrors() {
        given().when().get("/api/bundles/search").then().statusCode(400).contentType(containsString("application/problem+json"))
                .body("detail", containsString("?q="));
        given().queryParam("q", "  ").when().get("/api/bundles/search").then().statusCode(400);
        given().queryParam("q", "x").queryParam("limit", 0).when().get("/api/bundles/search").then().statusCode(400);
        given().queryParam("q", "x").queryParam("offset", -1).when().get("/api/bundles/search").then().statusCode(400);
        given().queryParam("q", "x ".repeat(200)).when().get("/api/bundles/search").then().statusCode(200);
        given().queryParam("q", "x ".repeat(700)).when().get("/api/bundles/search").then().statusCode(400)
                .body("detail", containsString("at character 501"));
        given().queryParam("q", "<>&'%00 |||").when().get("/api/bundles/search").then().statusCode(200);
        given().queryParam("q", "<>&\"'%00 ||| (((").when().get("/api/bundles/search").then().statusCode(400)
                .contentType(containsString("application/problem+json")).body("detail", containsString("at character 4"));
        given().when().get("/api/bundles/987654321/similar").then().statusCode(404)
                .contentType(containsString("application/problem+json"));
        given().when().get("/api/bundles/1/similar?limit=500").then().statusCode(400);
        given().when().get("/api/bundles/not-a-number/similar").then().statusCode(404);
    }

    static double score(long bundle, String article) {
        JsonPath d = given().when().get("/api/bundles/" + bundle + "/diagnosis").then().statusCode(200).extract().jsonPath();
        List<String> ids = d.getList("hypotheses.id", String.class);
        int at = ids.indexOf(article);
        return at < 0 ? 0 : d.getDouble("hypotheses[" + at + "].score");
    }

    static List<String> evidence(long bundle, String article) {
        JsonPath d = given().when().get("/api/bundles/" + bundle + "/diagnosis").then().statusCode(200).extract().jsonPath();
        int at = d.getList("hypotheses.id", String.class).indexOf(article);
        return at < 0 ? List.of() : d.getList("hypotheses[" + at + "].evidence.text", String.class);
    }

    @Test
    void aConfirmedCauseIsEvidenceForSimilarCrashesAndCanBeTakenBack() {
        String lib = lib();
        long a = upload("confirmed.log", log(lib, "train.py"));
        long b = upload("later.log", log(lib, "serve.py"));
        String article = "corrupt-install"; // not what the log alone points at most
        double before = score(b, article);
        assertThat(evidence(b, article)).noneMatch(t -> t.contains("confirmed"));

        given().contentType("application/json").body(Map.of("articleId", article, "note", "pip reinstall fixed it"))
                .when().put("/api/bundles/" + a + "/resolution").then().statusCode(200)
                .body("confirmed.articleId", org.hamcrest.Matchers.equalTo(article))
                .body("confirmed.note", org.hamcrest.Matchers.equalTo("pip reinstall fixed it"))
                .body("confirmed.title", org.hamcrest.Matchers.not(org.hamcrest.Matchers.emptyOrNullString()));
        given().when().get("/api/bundles/" + a + "/resolution").then().statusCode(200)
                .body("confirmed.articleId", org.hamcrest.Matchers.equalTo(article));

        // the later crash's diagnosis is recomputed with the confirmation as evidence pointing at it
        assertThat(evidence(b, article)).anyMatch(t -> t.contains("confirmed") && t.contains("confirmed.log") && t.contains("#" + a));
        assertThat(score(b, article)).isGreaterThan(before);
        JsonPath d = given().when().get("/api/bundles/" + b + "/diagnosis").then().extract().jsonPath();
        int at = d.getList("hypotheses.id", String.class).indexOf(article);
        assertThat(d.getList("hypotheses[" + at + "].evidence.source.artifact", String.class)).contains("bundle #" + a);

        // similar crashes and search say it is confirmed
        JsonPath s = similar(b);
        assertThat(s.getLong("similar[0].bundleId")).isEqualTo(a);
        assertThat(s.getString("similar[0].likelyCause.id")).isEqualTo(article);
        assertThat(s.getBoolean("similar[0].likelyCause.confirmed")).isTrue();
        JsonPath found = search(lib);
        int hit = found.getList("hits.bundleId", Long.class).indexOf(a);
        assertThat(found.getBoolean("hits[" + hit + "].likelyCause.confirmed")).isTrue();

        // the article lists the bundles confirmed as it, most recent first
        JsonPath kb = given().when().get("/api/kb/" + article + "/confirmed?limit=100").then().statusCode(200).extract().jsonPath();
        assertThat(kb.getList("bundles.bundleId", Long.class)).first().isEqualTo(a);
        assertThat(kb.getString("bundles[0].note")).isEqualTo("pip reinstall fixed it");
        assertThat(kb.getLong("total")).isGreaterThanOrEqualTo(1);

        given().when().delete("/api/bundles/" + a + "/resolution").then().statusCode(204);
        given().when().get("/api/bundles/" + a + "/resolution").then().statusCode(200)
                .body("confirmed", org.hamcrest.Matchers.nullValue());
        assertThat(evidence(b, article)).noneMatch(t -> t.contains("confirmed"));
        assertThat(given().when().get("/api/kb/" + article + "/confirmed?limit=100").then().statusCode(200).extract()
                .jsonPath().getList("bundles.bundleId", Long.class)).doesNotContain(a);
    }

    @Test
    void badConfirmationsAreProblems() {
        long a = upload("x.log", log(lib(), "x.py"));
        given().contentType("application/json").body(Map.of("articleId", "no-such-cause"))
                .when().put("/api/bundles/" + a + "/resolution").then().statusCode(400)
                .contentType(containsString("application/problem+json")).body("detail", containsString("no-such-cause"));
        given().contentType("application/json").body(Map.of("note", "forgot the article"))
                .when().put("/api/bundles/" + a + "/resolution").then().statusCode(400);
        given().contentType("application/json").body(Map.of("articleId", "gpu-oom", "note", "n".repeat(2001)))
                .when().put("/api/bundles/" + a + "/resolution").then().statusCode(400).body("detail", containsString("2000"));
        given().contentType("application/json").body("{not json")
                .when().put("/api/bundles/" + a + "/resolution").then().statusCode(400);
        given().contentType("application/json")
                .when().put("/api/bundles/" + a + "/resolution").then().statusCode(400);
        given().contentType("application/json").body(Map.of("articleId", "gpu-oom"))
                .when().put("/api/bundles/987654321/resolution").then().statusCode(404);
        given().when().get("/api/bundles/987654321/resolution").then().statusCode(404);
        given().when().get("/api/kb/no-such-cause/confirmed").then().statusCode(404)
                .contentType(containsString("application/problem+json"));
        given().when().get("/api/kb/gpu-oom/confirmed?limit=0").then().statusCode(400);
        given().when().delete("/api/bundles/987654321/resolution").then().statusCode(404);
        given().when().get("/api/bundles/" + a + "/resolution").then().statusCode(200)
                .body("confirmed", org.hamcrest.Matchers.nullValue());
    }
}
