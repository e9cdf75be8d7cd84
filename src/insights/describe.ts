/**
 * A cluster described for people: a label, an icon, a summary and an impact,
 * from the issues it holds (all of them, or a sample the caller picks, such
 * as the latest 50).
 *
 * The label is the cluster's two most telling terms: terms ranked by how many
 * of its issues hold them times their idf in the corpus (when given), a pair
 * of words ("rate limit") preferred to either word alone. The icon is the
 * theme of ICON_THEMES whose words weigh most in the cluster. The summary
 * names the count, the most frequent titles and the details of the issue
 * nearest the cluster's middle.
 *
 * Impact: the highest impact that at least a fifth of the issues have (so
 * one alarmed conversation does not make a large cluster high), and at least
 * medium once a cluster holds IMPACT_VOLUME issues (many people hitting the
 * same gap matters even if each was mild).
 */
import { CONVERSATION_IMPACTS } from '../db/value-sets.ts';
import type { ClusterDescription, CorpusStats, Impact, Terms } from './types.ts';
import { compareStrings, cosine, idf, termProfile, weightProfile } from './vectors.ts';

export interface DescribedIssue {
  title: string;
  details: string;
  terms: Terms;
  impact: Impact;
}

/** Issues from which a cluster is at least of medium impact. */
export const IMPACT_VOLUME = 10;
/** The icon of a cluster whose words match no theme. */
export const DEFAULT_ICON = 'circle-question';

/**
 * Font Awesome icon names (free set) for themes every API's documentation
 * has, each with the lemmas that call it. Ordered: on a tie the earlier
 * theme wins.
 */
export const ICON_THEMES: readonly { icon: string; words: readonly string[] }[] = [
  { icon: 'key', words: ['key', 'token', 'oauth', 'authentication', 'auth', 'credential', 'secret', 'bearer', 'scope'] },
  { icon: 'right-to-bracket', words: ['sso', 'saml', 'scim', 'okta', 'idp', 'login', 'sign'] },
  { icon: 'user-shield', words: ['role', 'permission', 'admin', 'member', 'access', 'invite', 'owner'] },
  { icon: 'bell', words: ['webhook', 'event', 'callback', 'notification', 'signature', 'delivery'] },
  { icon: 'gauge-high', words: ['rate', 'limit', 'throttle', 'quota', 'burst', 'retry'] },
  { icon: 'list-ol', words: ['pagination', 'paginate', 'cursor', 'page', 'offset'] },
  { icon: 'box-open', words: ['sdk', 'install', 'package', 'library', 'npm', 'pip', 'gem', 'dependency', 'import'] },
  { icon: 'terminal', words: ['cli', 'command', 'deploy', 'deployment', 'pipeline', 'terminal'] },
  { icon: 'file-export', words: ['export', 'csv', 'download', 'backup', 'archive'] },
  { icon: 'file-invoice-dollar', words: ['billing', 'invoice', 'payment', 'plan', 'price', 'charge', 'tax', 'subscription'] },
  { icon: 'triangle-exclamation', words: ['error', 'exception', 'status', 'failure', 'code'] },
  { icon: 'globe', words: ['domain', 'dns', 'record', 'cname', 'certificate', 'ssl', 'tls'] },
  { icon: 'envelope', words: ['email', 'mail', 'inbox', 'smtp'] },
  { icon: 'comment-sms', words: ['sms', 'phone', 'text'] },
];

/** Impacts lowest first (the value set's order). */
const IMPACT_ORDER: readonly Impact[] = CONVERSATION_IMPACTS;

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** The highest of `impacts` (a conversation's: null when it has no issue). */
export function highestImpact(impacts: readonly Impact[]): Impact | null {
  return impacts.reduce<Impact | null>((best, impact) => (best === null || IMPACT_ORDER.indexOf(impact) > IMPACT_ORDER.indexOf(best) ? impact : best), null);
}

/** The cluster's impact by the rule of the module's comment. */
export function clusterImpact(impacts: Impact[]): Impact {
  if (impacts.length === 0) return 'low';
  let chosen: Impact = 'low';
  for (const impact of IMPACT_ORDER) {
    const count = impacts.filter((other) => IMPACT_ORDER.indexOf(other) >= IMPACT_ORDER.indexOf(impact)).length;
    if (count >= Math.max(1, impacts.length / 5)) chosen = impact;
  }
  if (impacts.length >= IMPACT_VOLUME && chosen === 'low') chosen = 'medium';
  return chosen;
}

/** Terms ranked for a label: issues holding them × idf (1 without a corpus), pairs of words × 1.5. */
function rankedTerms(issues: DescribedIssue[], corpus: CorpusStats | undefined): { term: string; score: number }[] {
  const holders = new Map<string, number>();
  for (const issue of issues) for (const term of Object.keys(issue.terms)) holders.set(term, (holders.get(term) ?? 0) + 1);
  const score = (term: string) => holders.get(term)! * (corpus && corpus.documents > 0 ? idf(corpus, term) : 1) * (term.includes(' ') ? 1.5 : 1);
  // A term only one issue of several holds names that issue, not the cluster; one most issues of the corpus hold (the product's name) names nothing.
  const minimum = issues.length > 1 ? 2 : 1;
  const common = (term: string) => corpus !== undefined && corpus.documents >= 4 && (corpus.frequencies[term] ?? 0) > corpus.documents / 2;
  return [...holders.keys()]
    .filter((term) => holders.get(term)! >= minimum && !common(term))
    .map((term) => ({ term, score: score(term) }))
    .sort((a, b) => b.score - a.score || compareStrings(a.term, b.term));
}

/** The most telling term, and a second that shares no word with it and tells at least half as much ("Webhook signature and secret"). */
function labelOf(ranked: { term: string; score: number }[]): string {
  if (ranked.length === 0) return 'Other documentation questions';
  const first = ranked[0].term;
  const words = new Set(first.split(' '));
  const second = ranked
    .slice(1, 10)
    .find(({ term, score }) => score >= ranked[0].score / 2 && !term.split(' ').some((word) => words.has(word)))?.term;
  return capitalise(second ? `${first} and ${second}` : first);
}

function iconOf(issues: DescribedIssue[]): string {
  const weight = new Map<string, number>();
  for (const issue of issues) for (const [term, count] of Object.entries(issue.terms)) if (!term.includes(' ')) weight.set(term, (weight.get(term) ?? 0) + count);
  let best = DEFAULT_ICON;
  let bestScore = 0;
  for (const theme of ICON_THEMES) {
    const score = theme.words.reduce((sum, word) => sum + (weight.get(word) ?? 0), 0);
    if (score > bestScore) {
      best = theme.icon;
      bestScore = score;
    }
  }
  return best;
}

/** The issue nearest the cluster's mean (ties: the earlier). */
function centralIssue(issues: DescribedIssue[], corpus: CorpusStats): DescribedIssue {
  const sum: Terms = {};
  const profiles = issues.map((issue) => termProfile(issue.terms));
  for (const profile of profiles) for (const term of Object.keys(profile)) sum[term] = (sum[term] ?? 0) + profile[term];
  const middle = weightProfile(sum, corpus);
  let best = 0;
  let bestSimilarity = -1;
  profiles.forEach((profile, index) => {
    const similarity = cosine(weightProfile(profile, corpus), middle);
    if (similarity > bestSimilarity) {
      best = index;
      bestSimilarity = similarity;
    }
  });
  return issues[best];
}

/** Label, icon, summary and impact of a cluster from its issues (see the module's comment). */
export function describeCluster(issues: DescribedIssue[], corpus?: CorpusStats): ClusterDescription {
  const label = labelOf(rankedTerms(issues, corpus));
  const impact = clusterImpact(issues.map((issue) => issue.impact));
  if (issues.length === 0) return { label, icon: DEFAULT_ICON, summary: 'No issues yet.', impact };
  // Without a corpus, the issues themselves give the document frequencies (no term below the minimum is dropped).
  const statistics = corpus ?? { documents: issues.length, frequencies: Object.fromEntries(rankedTerms(issues, undefined).map(({ term }) => [term, 2])) };
  const central = centralIssue(issues, statistics);
  const titles = new Map<string, number>();
  for (const issue of issues) titles.set(issue.title, (titles.get(issue.title) ?? 0) + 1);
  const frequent = [...titles.keys()].sort((a, b) => titles.get(b)! - titles.get(a)! || compareStrings(a, b)).slice(0, 3);
  const count = issues.length === 1 ? 'One conversation' : `${issues.length} conversations`;
  const summary = `${count} about ${label.toLowerCase()}, such as ${frequent.map((title) => `"${clip(title, 80)}"`).join(', ')}. ${clip(central.details, 300)}`;
  return { label, icon: iconOf(issues), summary, impact };
}
