package dev.crashlab.web;

import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
import dev.crashlab.kb.FieldCondition;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.Matcher;
import dev.crashlab.kb.Remedy;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import dev.crashlab.kb.service.KnowledgeService;
import dev.crashlab.search.KbHit;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

/**
 * Serves the knowledge base: the article list, one article (front matter as JSON and the Markdown body;
 * rendering Markdown is the UI's job, no Markdown renderer resolves here), and full-text search.
 */
@Path("/kb")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class KbResource {

    @Inject
    KnowledgeService knowledge;

    @Inject
    dev.crashlab.diagnose.service.ResolutionService resolutions;

    @GET
    @Path("/{id}/confirmed")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "The bundles confirmed as this cause, most recent first: {\"articleId\",\"total\",\"bundles\":[{\"bundleId\",\"name\","
            + "\"uploadedAt\",\"note\",\"confirmedAt\"}]}")
    public dev.crashlab.diagnose.service.ResolutionService.ConfirmedBundles confirmed(@RestPath String id,
                                                                          @RestQuery("limit") @DefaultValue("20") String limitText) {
        int limit = Paging.number("limit", limitText, 1, 100);
        return resolutions.confirmedAs(id, limit).orElseThrow(() -> ProblemException.notFound("no KB article '" + id + "'"));
    }

    /** One article in the list. */
    public record ArticleSummary(String id, String title, String category, List<String> platforms, double prior) {
        static ArticleSummary of(KbArticle a) {
            return new ArticleSummary(a.id(), a.title(), a.category(), a.platforms(), a.prior());
        }
    }

    /** The list, with the fingerprint diagnoses are stored under. */
    public record ArticleList(List<ArticleSummary> articles, String fingerprint) {}

    /** Search hits for a query. */
    public record SearchResult(String query, List<KbHit> hits) {}

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "List the KB's articles: {\"articles\":[{\"id\",\"title\",\"category\",\"platforms\",\"prior\"}],\"fingerprint\"}")
    public ArticleList list() {
        var kb = knowledge.current().source().kb();
        return new ArticleList(kb.articles().stream().map(ArticleSummary::of).toList(), kb.fingerprint());
    }

    @GET
    @Path("/search")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Search the KB by words (typo-tolerant) and by meaning (once the embedding model is loaded): {\"query\",\"hits\":[{\"id\",\"title\",\"category\",\"score\",\"snippets\"}]}; snippets are HTML with <mark> around matches")
    public SearchResult search(@RestQuery String q, @RestQuery("limit") @DefaultValue("10") String limitText) {
        if (q == null || q.isBlank()) {
            throw new ProblemException(400, "missing-query", "Missing query", "pass the words to search for as ?q=");
        }
        int limit = Paging.number("limit", limitText, 1, 50);
        String query = q.length() > 500 ? q.substring(0, 500) : q;
        return new SearchResult(query, knowledge.current().index().searchWithoutWaiting(query, limit));
    }

    @GET
    @Path("/{id}")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "One article: its front matter as JSON, the Markdown body (\"bodyMarkdown\"); \"bodyHtml\" is null (the UI renders Markdown)")
    public ArticleView article(@RestPath String id) {
        KbArticle a = knowledge.current().source().kb().article(id)
                .orElseThrow(() -> ProblemException.notFound("no KB article '" + id + "'"));
        return new ArticleView(a.id(), a.title(), a.category(), a.platforms(), a.prior(),
                a.matchers().stream().map(MatcherView::of).toList(), a.against().stream().map(MatcherView::of).toList(),
                a.remedies(), a.confirm(), a.references(), a.body(), null);
    }

    /**
     * One article: its front matter and its Markdown body.
     *
     * @param bodyHtml always null: the UI renders the Markdown
     */
    public record ArticleView(String id, String title, String category, List<String> platforms, double prior,
                              List<MatcherView> matchers, List<MatcherView> against, List<Remedy> remedies,
                              List<String> confirm, List<String> references, String bodyMarkdown, String bodyHtml) {}

    /**
     * One matcher as the article states it; only the fields of its kind are present.
     *
     * @param fact the fact kind a fact matcher reads, with {@code where}: field to condition as written
     * @param text the regular expression of a text matcher
     * @param compat the compat check of a compat matcher, with the {@code outcome} it wants
     * @param all the parts of an {@code all:} matcher
     * @param absent true for a part that holds when nothing matches it (absent otherwise)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record MatcherView(@Schema(required = true) String id, String fact, Map<String, String> where, String text,
                              String compat, String outcome, List<MatcherView> all, Boolean absent,
                              @Schema(required = true) double weight, @Schema(required = true) boolean specific,
                              @Schema(required = true, nullable = true) @JsonInclude(JsonInclude.Include.ALWAYS) String says) {

        static MatcherView of(Matcher m) {
            String fact = null;
            Map<String, String> where = null;
            String text = null;
            String compat = null;
            String outcome = null;
            List<MatcherView> all = null;
            switch (m.source()) {
                case FACT -> {
                    fact = m.factKind();
                    where = new LinkedHashMap<>();
                    for (FieldCondition c : m.where()) {
                        where.put(c.field(), c.condition().written());
                    }
                }
                case TEXT -> text = m.text().source();
                case COMPAT -> {
                    compat = m.compat();
                    outcome = m.outcome();
                }
                case ALL -> all = m.all().stream().map(MatcherView::of).toList();
            }
            return new MatcherView(m.id(), fact, where, text, compat, outcome, all, m.absent() ? Boolean.TRUE : null,
                    m.weight(), m.specific(), m.says());
        }
    }
}
