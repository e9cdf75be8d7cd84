import { describe, expect, it } from 'vitest';
import { extractIssues, impactOf } from '../../src/insights/extract.ts';
import { toSentences } from '../../src/insights/text.ts';
import type { Conversation, ConversationRole } from '../../src/insights/types.ts';

function conversation(id: string, subject: string | undefined, ...messages: [ConversationRole, string][]): Conversation {
  return { id, subject, parts: messages.map(([role, body]) => ({ type: 'message', role, body })) };
}

describe('extractIssues', () => {
  it('finds no issue in a question answered from the documentation', () => {
    const answered = conversation(
      'answered',
      'How do I set the sender name?',
      ['user', 'How do I set the sender name on outgoing mail?'],
      ['team-member', 'Hi! Pass `from_name` with the request, as the Sending guide describes. Here is the link: [Sending](https://docs.example.com/sending).'],
      ['user', 'That worked, thanks!'],
    );
    expect(extractIssues(answered)).toEqual([]);
  });

  it('finds no issue in a bug report or an account request', () => {
    const bug = conversation('bug', 'Sends failing', ['user', 'All sends fail with 500 since noon.'], ['team-member', 'We had an incident on our side; it is fixed now. Sorry about that.'], ['user', 'Confirmed, thanks.']);
    const account = conversation('account', 'Close my account', ['user', 'Please close our account and delete our data.'], ['team-member', 'Done, the account is closed and the data will be deleted within 30 days.']);
    expect(extractIssues(bug)).toEqual([]);
    expect(extractIssues(account)).toEqual([]);
  });

  it('finds the issue of documentation that is wrong, with the subject as title and the sentences that say so', () => {
    const [issue, ...more] = extractIssues(
      conversation(
        'wrong',
        'Re: Token lifetime',
        ['user', 'The OAuth guide says tokens last 24 hours, but ours expire after one hour. We are blocked in production.'],
        ['team-member', 'Sorry, the guide is wrong: tokens last one hour. I have asked the docs team to fix the page.'],
      ),
    );
    expect(more).toEqual([]);
    expect(issue.title).toBe('Token lifetime');
    expect(issue.impact).toBe('high');
    expect(issue.details).toContain('the guide is wrong');
    expect(issue.terms.token).toBeGreaterThan(0);
    expect(issue.terms.oauth).toBeGreaterThan(0);
    // Courtesy and the documentation's own words are not what an issue is about.
    expect(issue.terms.thanks).toBeUndefined();
    expect(issue.terms.guide).toBeUndefined();
  });

  it('finds missing documentation an assistant admits, in HTML bodies, titled by the user when there is no subject', () => {
    const [issue] = extractIssues(
      conversation(
        'missing',
        undefined,
        ['user', '<p>Can I resend a <b>webhook</b> event from the dashboard?</p>'],
        ['assistant', "<p>I couldn't find anything in the documentation about resending webhook events.</p>"],
      ),
    );
    expect(issue.title).toBe('Can I resend a webhook event from the dashboard?');
    expect(issue.details).not.toContain('<');
    expect(issue.terms.webhook).toBeGreaterThan(0);
  });

  it('is the same for the same conversation', () => {
    const input = conversation('same', 'Docs outdated', ['user', 'The CLI page is outdated: `deploy --env` is gone.'], ['team-member', "You're right, I'll get it updated."]);
    expect(JSON.stringify(extractIssues(input))).toBe(JSON.stringify(extractIssues(structuredClone(input))));
  });
});

describe('impactOf', () => {
  it('is high when users are blocked, low when they say it is small, medium otherwise', () => {
    expect(impactOf(toSentences(['Our launch is blocked by this.']))).toBe('high');
    expect(impactOf(toSentences(['Just a typo on the page, fyi.']))).toBe('low');
    expect(impactOf(toSentences(['The example uses the wrong header.']))).toBe('medium');
  });
});
