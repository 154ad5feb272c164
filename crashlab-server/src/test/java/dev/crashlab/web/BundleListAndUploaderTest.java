package dev.crashlab.web;

import static dev.crashlab.testing.TestAuth.userToken;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.restassured.path.json.JsonPath;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Bundles list says what each crash was (cause, group, GPU, framework, a name that tells loose {@code crash.log}s
 * apart, the real status), and {@code uploader:me} means the caller's own uploads in search, trends and export.
 */
@QuarkusTest
@Tag("persistence")
class BundleListAndUploaderTest {

    static final Path CUDNN = Path.of("crashlab-core/src/test/resources/kb-fixtures/cudnn-version-mismatch");


    static long uploadLoose(String token, String logName) throws Exception {
        long id = given().header("Authorization", "Bearer " + token)
                .multiPart("file", logName, Files.readAllBytes(CUDNN.resolve("console.log")), "text/plain")
                .multiPart("file", "env.txt", Files.readAllBytes(CUDNN.resolve("env.txt")), "text/plain")
                .when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id);
        return id;
    }

    static Map<String, Object> row(long id) {
        // newest first: a just-uploaded bundle is on the first page unless 100 others came after it
        List<Map<String, Object>> items = given().queryParam("size", 100).get("/api/bundles").then().statusCode(200)
                .extract().jsonPath().getList("items");
        return items.stream().filter(m -> ((Number) m.get("id")).longValue() == id).findFirst().orElseThrow();
    }

    @Test
    @SuppressWarnings("unchecked")
    void listRowsSayTheCauseGroupSettingAndATellingName() throws Exception {
        String tag = "rows" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        String token = userToken("rows-" + tag, "reporter");
        long id = uploadLoose(token, "crash.log");
        Map<String, Object> r = row(id);
        assertThat(r.get("name")).isEqualTo("crash.log");
        assertThat(r.get("status")).isEqualTo("READY");
        Map<String, Object> cause = (Map<String, Object>) r.get("likelyCause");
        assertThat(cause).containsEntry("id", "cudnn-version-mismatch").containsEntry("confirmed", false);
        assertThat((String) cause.get("title")).isNotBlank();
        assertThat((String) r.get("gpu")).contains("2080");
        assertThat((String) r.get("framework")).isEqualTo("tensorflow 2.6");
        // the group is the one search reports for this bundle
        JsonPath hit = given().queryParam("q", "cause:cudnn-version-mismatch gpu:2080").queryParam("limit", 50)
                .get("/api/bundles/search").then().statusCode(200).extract().jsonPath();
        String group = hit.getString("hits.find { it.bundleId == " + id + " }.group");
        assertThat(group).isNotNull().isEqualTo(r.get("group"));
        // a lone crash.log says which crash it is: its GPU (and exception or exit code when it has one)
        String shown = (String) r.get("displayName");
        assertThat(shown).startsWith("crash.log · ").contains("2080");
        assertThat(r.get("pinned")).isEqualTo(false);

        // a telling name stays as it is
        long named = uploadLoose(token, "resnet50-" + tag + ".log");
        assertThat(row(named).get("displayName")).isEqualTo("resnet50-" + tag + ".log");
    }

    @Test
    void aBundleStillBeingReadSaysProcessing() throws Exception {
        // the list's status is the bundle's real state, not a constant: right after the upload it is PROCESSING or READY,
        // and it is READY once read
        String token = userToken("proc-" + UUID.randomUUID().toString().substring(0, 8), "reporter");
        long id = given().header("Authorization", "Bearer " + token)
                .multiPart("file", "crash.log", Files.readAllBytes(CUDNN.resolve("console.log")), "text/plain")
                .when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        assertThat((String) row(id).get("status")).isIn("PROCESSING", "READY");
        dev.crashlab.testing.Ready.await(id);
        assertThat(row(id).get("status")).isEqualTo("READY");
    }

    @Test
    void uploaderMeIsTheCallersOwnUploads() throws Exception {
        String tag = "upl" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        String alice = "alice-" + tag;
        String aliceToken = userToken(alice, "reporter");
        String bobToken = userToken("bob-" + tag, "reporter");
        long a = uploadLoose(aliceToken, tag + "-a.log");
        long b = uploadLoose(bobToken, tag + "-b.log");

        assertThat(ids(aliceToken, tag + " uploader:me")).containsExactly(a);
        assertThat(ids(bobToken, tag + " uploader:me")).containsExactly(b);
        assertThat(ids(aliceToken, tag + " -uploader:me")).containsExactly(b);
        assertThat(ids(bobToken, tag + " uploader:" + alice)).containsExactly(a);
        assertThat(ids(null, tag + " uploader:me")).isEmpty(); // the admin token uploaded neither
        assertThat(ids(null, tag + " (uploader:" + alice + " OR uploader:bob-" + tag + ")")).containsExactlyInAnyOrder(a, b);
        JsonPath page = given().header("Authorization", "Bearer " + aliceToken).queryParam("q", tag + " uploader:me")
                .get("/api/bundles/search").then().statusCode(200).extract().jsonPath();
        assertThat(page.getList("notes", String.class)).isEmpty();

        // trends and export read it the same way
        assertThat(given().header("Authorization", "Bearer " + aliceToken).queryParam("q", tag + " uploader:me")
                .get("/api/bundles/trends").then().statusCode(200).extract().jsonPath().getLong("total")).isEqualTo(1);
        String csv = given().header("Authorization", "Bearer " + aliceToken).queryParam("q", tag + " uploader:me")
                .queryParam("format", "csv").get("/api/bundles/search/export").then().statusCode(200).extract().asString();
        assertThat(csv.lines().skip(1).toList()).singleElement().asString().startsWith(a + ",");
    }

    static List<Long> ids(String token, String q) {
        var req = given();
        if (token != null) {
            req = req.header("Authorization", "Bearer " + token);
        }
        return req.queryParam("q", q).queryParam("limit", 50).get("/api/bundles/search").then().statusCode(200).extract()
                .jsonPath().getList("hits.bundleId", Long.class);
    }
}
