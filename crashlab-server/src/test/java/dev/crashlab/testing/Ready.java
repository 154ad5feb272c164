package dev.crashlab.testing;

import static io.restassured.RestAssured.given;

import java.time.Duration;

/** Waits for a bundle's background reading and diagnosis: upload answers {@code PROCESSING} at once. */
public final class Ready {

    private Ready() {}

    /** Polls the bundle until it is {@code READY}; fails after a minute. */
    public static void await(long bundleId) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            String status = given().get("/api/bundles/" + bundleId).then().statusCode(200).extract().path("status");
            if ("READY".equals(status)) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("bundle " + bundleId + " did not become READY within 60 s");
    }
}
