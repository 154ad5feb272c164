package dev.crashlab.web;

import static dev.crashlab.testing.TestAuth.userToken;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 27's admin and upload items through the API: every token listed with its owner and last use, the audit filter,
 * the local worker's state, the disabled account's own message, uploads of files already uploaded, and collector bundles
 * named by what was read in them.
 */
@QuarkusTest
@Tag("persistence")
class AdminPagesApiTest {

    static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    static long upload(String token, String name, Map<String, String> files) {
        var req = given().header("Authorization", "Bearer " + token);
        for (var f : files.entrySet()) {
            req = req.multiPart("file", f.getKey(), f.getValue().getBytes(StandardCharsets.UTF_8), "text/plain");
        }
        if (name != null) {
            req = req.multiPart("name", name);
        }
        return req.when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
    }

    @Test
    void everyTokenIsListedWithItsOwnerRolesAndLastUseAndCanBeRevoked() {
        String user = "tok-" + suffix();
        String personal = userToken(user, "reporter");
        String worker = "w-" + suffix();
        given().contentType("application/json").body(Map.of("worker", worker)).post("/api/admin/worker-tokens").then().statusCode(201);
        given().header("Authorization", "Bearer " + personal).get("/api/bundles").then().statusCode(200); // a use

        JsonPath all = given().get("/api/admin/tokens").then().statusCode(200).extract().jsonPath();
        Map<String, Object> mine = all.getMap("find { it.owner == '" + user + "' }");
        assertThat(mine).isNotNull().containsEntry("name", "test").containsEntry("revokedAt", null);
        assertThat((List<?>) mine.get("roles")).asList().contains("reporter");
        assertThat(mine.get("createdAt")).isNotNull();
        assertThat(mine.get("lastUsedAt")).as("last used, after the token's request").isNotNull();
        // worker tokens and the provisioned admin token are in the same list
        assertThat(all.getList("findAll { it.workerName == '" + worker + "' }")).hasSize(1);
        assertThat(all.getList("findAll { it.name == 'CRASHLAB_ADMIN_TOKEN' }")).hasSize(1);
        // newest first
        List<String> created = all.getList("createdAt", String.class);
        assertThat(created).isSortedAccordingTo(java.util.Comparator.reverseOrder());

        long id = ((Number) mine.get("id")).longValue();
        given().delete("/api/tokens/" + id).then().statusCode(200);
        given().get("/api/admin/tokens").then().body("find { it.id == " + id + " }.revokedAt", not(nullValue()));
        given().header("Authorization", "Bearer " + personal).get("/api/bundles").then().statusCode(401);
        // admins only
        given().header("Authorization", "Bearer " + userToken("tokv-" + suffix(), "triager")).get("/api/admin/tokens").then()
                .statusCode(403);
    }

    @Test
    void theAuditTrailFiltersByActorActionBundleAndTimeWithPaging() {
        String user = "aud-" + suffix();
        String token = userToken(user, "reporter");
        long a = upload(token, null, Map.of("a-" + suffix() + ".log", "RuntimeError: one " + suffix() + "\n"));
        long b = upload(token, null, Map.of("b-" + suffix() + ".log", "RuntimeError: two " + suffix() + "\n"));
        given().header("Authorization", "Bearer " + token).delete("/api/bundles/" + b).then().statusCode(204);

        JsonPath byActor = given().queryParam("actor", user).get("/api/audit").then().statusCode(200).extract().jsonPath();
        assertThat(byActor.getList("items.actor", String.class)).containsOnly(user);
        assertThat(byActor.getList("items.action", String.class)).contains("bundle.upload", "bundle.delete", "token.create");
        // a bundle's entries: its upload and its delete, nothing of the other bundle
        JsonPath byBundle = given().queryParam("bundle", b).get("/api/audit").then().statusCode(200).extract().jsonPath();
        assertThat(byBundle.getList("items.target", String.class)).containsOnly("bundle " + b);
        assertThat(byBundle.getList("items.action", String.class)).containsExactly("bundle.delete", "bundle.upload");
        given().queryParam("bundle", "#" + a).get("/api/audit").then().body("items.target", org.hamcrest.Matchers.everyItem(equalTo("bundle " + a)));
        // an action family ends in a dot
        JsonPath family = given().queryParam("actor", user).queryParam("action", "bundle.").get("/api/audit").then().extract().jsonPath();
        assertThat(family.getList("items.action", String.class)).containsOnly("bundle.upload", "bundle.delete").hasSize(3);
        given().queryParam("actor", user).queryParam("action", "bundle.upload").get("/api/audit").then().body("total", equalTo(2));
        // the time range: today holds them all, yesterday none, a range in the future none
        String today = LocalDate.now(ZoneOffset.UTC).toString();
        String yesterday = LocalDate.now(ZoneOffset.UTC).minusDays(1).toString();
        given().queryParam("actor", user).queryParam("from", today).queryParam("to", today).get("/api/audit").then()
                .body("total", equalTo(byActor.getInt("total")));
        given().queryParam("actor", user).queryParam("to", yesterday).get("/api/audit").then().body("total", equalTo(0));
        given().queryParam("actor", user).queryParam("from", java.time.Instant.now().plusSeconds(3600).toString()).get("/api/audit")
                .then().body("total", equalTo(0));
        // paging: one a page, the second page is the second newest
        JsonPath p1 = given().queryParam("actor", user).queryParam("size", 1).queryParam("page", 1).get("/api/audit").then()
                .extract().jsonPath();
        assertThat(p1.getList("items")).hasSize(1);
        assertThat(p1.getLong("items[0].id")).isEqualTo(byActor.getLong("items[1].id"));
        // bad input is a 400 that says what is wrong
        given().queryParam("from", "yesterday").get("/api/audit").then().statusCode(400).body("detail", containsString("not a time"));
        given().queryParam("from", today).queryParam("to", yesterday).get("/api/audit").then().statusCode(400)
                .body("detail", containsString("must be before"));
        given().queryParam("bundle", "twelve").get("/api/audit").then().statusCode(400).body("detail", containsString("bundle"));
        given().queryParam("size", "9999").get("/api/audit").then().statusCode(400);
        // the filter's choices
        JsonPath choices = given().get("/api/audit/choices").then().statusCode(200).extract().jsonPath();
        assertThat(choices.getList("actors", String.class)).contains(user);
        assertThat(choices.getList("actions", String.class)).contains("bundle.upload", "bundle.delete");
    }

    @Test
    void theWorkersViewSaysWhetherTheLocalWorkerRuns() {
        // the %test profile turns the local worker off (ReproUiTestProfile turns it on: AdminPagesBrowserTest)
        given().get("/api/admin/workers").then().statusCode(200).body("local.enabled", equalTo(false))
                .body("local.alive", equalTo(false)).body("local.restarts", equalTo(0)).body("local.backend", not(nullValue()));
    }

    @Test
    void aDisabledAccountIsToldSoOnlyAfterTheRightPassword() {
        String name = "dis-" + suffix();
        String password = "pw-" + UUID.randomUUID();
        long id = given().contentType("application/json").body(Map.of("username", name, "password", password, "roles", List.of("viewer")))
                .post("/api/admin/users").then().statusCode(201).extract().jsonPath().getLong("id");
        given().contentType("application/json").body(Map.of("disabled", true)).put("/api/admin/users/" + id).then().statusCode(200);

        String right = given().header("Authorization", "").contentType("application/json")
                .body(Map.of("username", name, "password", password)).post("/api/auth/login").then().statusCode(403)
                .body("title", equalTo("Account disabled")).extract().path("detail");
        assertThat(right).contains(name).contains("is disabled").contains("administrator").doesNotContain("wrong");
        // whom to ask: an enabled admin by name
        List<String> admins = given().get("/api/admin/users").then().extract().jsonPath()
                .getList("findAll { it.roles.contains('admin') && !it.disabled }.username", String.class);
        if (!admins.isEmpty()) {
            assertThat(right).contains(admins.stream().sorted().findFirst().orElseThrow());
        }
        // a wrong password learns nothing about the account
        given().header("Authorization", "").contentType("application/json").body(Map.of("username", name, "password", "wrong-" + password))
                .post("/api/auth/login").then().statusCode(401).body("detail", equalTo("wrong user name or password"));
    }

    @Test
    void anUploadOfTheSameFilesSaysSoAndIsStored() {
        String user = "dup-" + suffix();
        String token = userToken(user, "reporter");
        String tag = suffix();
        Map<String, String> files = Map.of("train.log", "RuntimeError: CUDA error: out of memory " + tag + "\n",
                "env.txt", "tensorflow: 2.10.1 " + tag + "\n");
        long first = upload(token, "first-" + tag, files);
        given().get("/api/bundles/" + first).then().body("sameFilesAs", nullValue());
        // the same files again, under another name and by someone else: stored, and the answer names the first
        String other = userToken("dup2-" + suffix(), "reporter");
        JsonPath again = given().header("Authorization", "Bearer " + other)
                .multiPart("file", "train.log", files.get("train.log").getBytes(StandardCharsets.UTF_8), "text/plain")
                .multiPart("file", "env.txt", files.get("env.txt").getBytes(StandardCharsets.UTF_8), "text/plain")
                .when().post("/api/bundles").then().statusCode(201).extract().jsonPath();
        long second = again.getLong("id");
        assertThat(second).isNotEqualTo(first);
        assertThat(again.getLong("sameFilesAs.bundleId")).isEqualTo(first);
        assertThat(again.getString("sameFilesAs.uploadedBy")).isEqualTo(user);
        assertThat(again.getString("sameFilesAs.name")).isEqualTo("first-" + tag);
        assertThat(again.getString("sameFilesAs.uploadedAt")).isNotNull();
        given().get("/api/bundles/" + second).then().body("sameFilesAs.bundleId", equalTo((int) first));
        // a third upload names the first, not the second
        long third = upload(token, null, files);
        given().get("/api/bundles/" + third).then().body("sameFilesAs.bundleId", equalTo((int) first));
        // a subset or a superset of the files is not the same upload
        long subset = upload(token, null, Map.of("train.log", files.get("train.log")));
        given().get("/api/bundles/" + subset).then().body("sameFilesAs", nullValue());
        java.util.Map<String, String> more = new java.util.HashMap<>(files);
        more.put("notes.txt", "more " + tag);
        long superset = upload(token, null, more);
        given().get("/api/bundles/" + superset).then().body("sameFilesAs", nullValue());
        // a changed byte is other files
        long changed = upload(token, null, Map.of("train.log", files.get("train.log").replace("memory", "memory!"),
                "env.txt", files.get("env.txt")));
        given().get("/api/bundles/" + changed).then().body("sameFilesAs", nullValue());
    }

    @Test
    void aCollectorBundleIsNamedByItsErrorFrameworkAndMachine() throws Exception {
        String token = userToken("coll-" + suffix(), "reporter");
        var fixture = BundleListAndUploaderTest.CUDNN;
        String tag = suffix();
        byte[] zip = dev.crashlab.testing.Zips.zip()
                .text("crash-bundle-20261129-051200/console.log", Files.readString(fixture.resolve("console.log")) + "\n# " + tag + "\n")
                .text("crash-bundle-20261129-051200/env.txt", Files.readString(fixture.resolve("env.txt")))
                .text("crash-bundle-20261129-051200/collector.txt", "# collect-crash-bundle.sh (CrashLab)\n")
                .build();
        long id = given().header("Authorization", "Bearer " + token).contentType("application/zip").body(zip)
                .queryParam("name", "crash-bundle-20261129-051200.zip").when().post("/api/bundles").then().statusCode(201)
                .extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id);
        Map<String, Object> row = BundleListAndUploaderTest.row(id);
        assertThat(row.get("name")).isEqualTo("crash-bundle-20261129-051200.zip");
        String shown = (String) row.get("displayName");
        assertThat(shown).doesNotContain("crash-bundle").contains("tensorflow 2.6").contains("2080");
        // the error (when the crash has one) first, then the framework, then the machine
        assertThat(shown).endsWith(row.get("framework") + " · " + row.get("gpu"));
    }
}
