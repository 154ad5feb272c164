package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** The KB API over HTTP, on the real knowledge base in kb-articles/. */
@QuarkusTest
class KbApiTest {

    @Test
    void listsEveryArticleWithTheFingerprint() {
        given().when().get("/api/kb").then().statusCode(200)
                .body("articles.size()", greaterThan(0))
                .body("articles.id", hasItem("missing-zlibwapi"))
                .body("fingerprint", notNullValue());
    }

    @Test
    void showsOneArticleWithFrontMatterAndMarkdown() {
        given().when().get("/api/kb/missing-zlibwapi").then().statusCode(200)
                .body("id", equalTo("missing-zlibwapi"))
                .body("matchers.size()", greaterThan(0))
                .body("remedies.size()", greaterThan(0))
                .body("bodyMarkdown", containsString("##"))
                .body("bodyHtml", nullValue());
    }

    @Test
    void unknownArticleIsAProblem404() {
        given().when().get("/api/kb/no-such-article").then().statusCode(404)
                .contentType(containsString("application/problem+json"));
    }

    @Test
    void searchFindsCodesAndFileNamesWithMarkedSnippets() {
        given().queryParam("q", "zlibwapi").when().get("/api/kb/search").then().statusCode(200)
                .body("hits[0].id", equalTo("missing-zlibwapi"))
                .body("hits[0].snippets[0]", containsString("<mark>"));
        given().queryParam("q", "0xC0000409").when().get("/api/kb/search").then().statusCode(200)
                .body("hits.size()", greaterThan(0));
        given().queryParam("q", "zlibwapii").when().get("/api/kb/search").then().statusCode(200)
                .body("hits.id", hasItem("missing-zlibwapi"));
    }

    @Test
    void searchWithoutAQueryIsA400Problem() {
        given().when().get("/api/kb/search").then().statusCode(400)
                .contentType(containsString("application/problem+json"));
    }
}
