/**
 * Measures the default insights engine on the labelled set:
 * `node --import tsx test/insights/measure-quality.ts [--topics a,b,...]`.
 * Conversations go through in createdAt order, in batches of 50 (as they
 * would arrive) and as one batch; each line says the precision, recall and F1
 * of "has a documentation issue", the adjusted Rand index of the true
 * positives' clusters against their topics, the clusters made, the share of
 * true positives given their labelled impact, and the time per 1,000
 * conversations.
 */
import { loadLabelledSet, measureQuality } from './labelled-set.ts';

const topicsArgument = process.argv.indexOf('--topics');
const topics = topicsArgument >= 0 ? process.argv[topicsArgument + 1].split(',') : undefined;
const { conversations, unreadable } = loadLabelledSet(topics);
if (unreadable.length > 0) console.log(`not readable (left out): ${unreadable.join(', ')}`);
const withIssue = conversations.filter((conversation) => conversation.label.hasDocIssue).length;
console.log(`${conversations.length} conversations (${withIssue} with a documentation issue, ${conversations.length - withIssue} without)`);
// The first run loads the language model; measure after it.
measureQuality(conversations.slice(0, 5), Infinity);
for (const [name, size] of [['batches of 50', 50], ['one batch', Infinity]] as const) {
  const quality = measureQuality(conversations, size);
  const round = (value: number) => value.toFixed(3);
  console.log(
    `${name}: topics ${quality.topics}; has issue: precision ${round(quality.precision)}, recall ${round(quality.recall)}, F1 ${round(quality.f1)} ` +
      `(${quality.truePositives} TP, ${quality.falsePositives} FP, ${quality.falseNegatives} FN); ARI ${round(quality.adjustedRandIndex)}, ${quality.clusters} clusters; ` +
      `impact agreement ${round(quality.impactAgreement)}; ${Math.round((quality.milliseconds / quality.conversations) * 1000)} ms per 1,000 conversations`,
  );
}
