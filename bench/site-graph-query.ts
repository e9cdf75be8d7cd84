/**
 * The nested query of the site graph benchmarks. Field names as in schema.graphql:
 * Organization.sites (a SiteList), Site.sections (position order), SiteSection.siteSpaces
 * (position order), SiteSpace.space. In a module of its own: the benchmarks take it through
 * bench/seed-sites.ts, the test of the hand-written baselines (test/bench/baselines.test.ts) from
 * here, without the harness (which pins the process that loads it to one core).
 */
export const SITE_GRAPH_QUERY = `query SiteGraph($organizationId: ID!, $limit: Int) {
  organization(id: $organizationId) {
    sites(limit: $limit) {
      items {
        id
        title
        sections {
          id
          title
          path
          siteSpaces {
            id
            path
            space { id title }
          }
        }
      }
    }
  }
}`;
export const SITES_LIMIT = 100;
