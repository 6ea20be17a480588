// Page states that end a send (issue 27), switchable per scenario with
// POST /__test/config {state: NAME, lang: "en"|"de"}. Each is modelled on how chatgpt.com
// shows it — the HTTP answer its backend gives the conversation POST (status, headers,
// JSON error body) and what the page renders (data-testid, role, aria) — in the project's
// own words, in English and German (the page is localised, so the extension must not rely
// on the English words).
//
//   something_went_wrong  the turn's stream ends with an `error` event; the page renders
//                         [data-testid="conversation-error"] with a Retry button (a click
//                         on it is counted as `retry_clicks` and POSTs again, as the page's
//                         own Retry does)
//   too_many_requests     the POST is answered 429 with Retry-After (config.retry_after,
//                         seconds or an HTTP date; `null` sends none) and a JSON `detail`;
//                         the page opens its modal: [role="dialog"][aria-modal="true"]
//   unusual_activity      the POST is answered 403 with a JSON `detail`; the page renders
//                         its error in the thread
//   headers_too_large     the POST is answered 431 with an HTML body (the front server's
//                         page, no JSON); the page renders its error in the thread
//   usage_limit           the turn's stream ends with an `error` event whose code is
//                         `usage_limit_reached`, its words naming the reset time
//   downgrade             the turn completes, answered by another model than the request
//                         named (the answer's metadata.model_slug), and the page shows
//                         its notice [data-testid="model-downgrade-notice"]
//   effort_limit          the picker's `extended` effort tier is disabled as a Radix menu
//                         item is (`aria-disabled="true"`, `data-disabled`) with its reset
//                         notice beside it (places.js); a click on it still selects it, as a
//                         careless page's might, and is counted as `disabled_clicks`

/** Every state's words, by language. */
export const WORDS = {
  en: {
    something_went_wrong: 'Something went wrong while generating the response. If this keeps happening, contact the help centre.',
    retry: 'Retry',
    too_many_requests: "Too many requests. You've been making too many requests in a short time, so we've temporarily limited access to your conversations. Wait a few minutes, then try again.",
    too_many_title: 'Too many requests',
    got_it: 'Got it',
    unusual_activity: 'Unusual activity has been detected from your device. Try again later. (ref 8f2c1a)',
    headers_too_large: 'Request headers too large. Clear the cookies for chatgpt.com, then reload the page.',
    downgrade: "You've reached the limit for this model. Responses will use another model until your limit resets after 3:45 PM.",
    usage_limit: "You've hit your limit for this plan. You can send again after December 4, 2099 at 9:12 AM.",
    effort_limit: 'Extended thinking is available again after 3:45 PM.',
  },
  de: {
    something_went_wrong: 'Beim Erzeugen der Antwort ist etwas schiefgelaufen. Wenn das weiter passiert, wende dich an die Hilfe.',
    retry: 'Erneut versuchen',
    too_many_requests: 'Zu viele Anfragen. Du hast in kurzer Zeit zu viele Anfragen gestellt, deshalb haben wir den Zugriff auf deine Unterhaltungen vorübergehend eingeschränkt. Warte ein paar Minuten und versuche es dann erneut.',
    too_many_title: 'Zu viele Anfragen',
    got_it: 'Verstanden',
    unusual_activity: 'Auf deinem Gerät wurden ungewöhnliche Aktivitäten festgestellt. Versuche es später erneut. (Ref. 8f2c1a)',
    headers_too_large: 'Die Anfrage-Header sind zu groß. Lösche die Cookies für chatgpt.com und lade die Seite neu.',
    downgrade: 'Du hast das Limit für dieses Modell erreicht. Antworten nutzen ein anderes Modell, bis dein Limit nach 15:45 Uhr zurückgesetzt wird.',
    usage_limit: 'Du hast das Kontingent deines Tarifs aufgebraucht. Du kannst nach dem 4. Dezember 2099 um 9:12 Uhr wieder senden.',
    effort_limit: 'Erweitertes Nachdenken ist ab 15:45 Uhr wieder verfügbar.',
  },
};

/** The model that answers in the `downgrade` state, and the one the request named. */
export const DOWNGRADED_MODEL = 'gpt-5-mini';
export const REQUESTED_MODEL = 'gpt-5-2-thinking';
/** The effort tier the `effort_limit` state disables. */
export const DISABLED_EFFORT = 'extended';

const words = (config) => WORDS[config.lang] || WORDS.en;

/**
 * How the server answers the conversation POST in this state, when it refuses it:
 * `{status, headers, body}`, else null (the turn is streamed).
 */
export function refusedAnswer(config) {
  const w = words(config);
  const retryAfter = config.retry_after === undefined ? '30' : config.retry_after;
  switch (config.state) {
    case 'too_many_requests':
      return {
        status: 429,
        headers: { 'content-type': 'application/json', ...(retryAfter === null ? {} : { 'retry-after': String(retryAfter) }) },
        body: JSON.stringify({ detail: w.too_many_requests }),
      };
    case 'unusual_activity':
      return { status: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ detail: w.unusual_activity }) };
    case 'headers_too_large':
      return {
        status: 431,
        headers: { 'content-type': 'text/html' },
        body: '<html><head><title>431 Request Header Fields Too Large</title></head><body><center><h1>431 Request Header Fields Too Large</h1></center></body></html>',
      };
    default:
      return null;
  }
}

/** The stream's error for this state, `{message, code}`, else null. */
export function streamError(config) {
  if (config.state === 'usage_limit') return { message: words(config).usage_limit, code: 'usage_limit_reached' };
  if (config.state !== 'something_went_wrong') return null;
  return { message: words(config).something_went_wrong, code: 'internal_error' };
}

/** What the page shows in this state, for app.js (GET /__fake/config carries it). */
export function pageView(config) {
  if (!config.state) return null;
  const w = words(config);
  // In the downgrade state the page's request names the model its picker shows (the
  // limit's model); another one answers. In the effort_limit state the picker disables a tier.
  return {
    state: config.state,
    words: { ...w },
    requested: config.state === 'downgrade' ? REQUESTED_MODEL : null,
    disabled_effort: config.state === 'effort_limit' ? DISABLED_EFFORT : null,
  };
}
