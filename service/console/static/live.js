// Keeps the console's pages current without a reload: every few seconds it asks the
// console how many gates wait for the person and how many of them are new, shows the
// count in the navigation and the tab's title, and on the inbox, when its list changed,
// fetches the inbox again and puts the new list in place of the one shown. It reads
// only this console's own answers; without it the pages work as they are.
'use strict';
(() => {
  const body = document.body;
  const summaryURL = body.dataset.liveSummary;
  const interval = Number(body.dataset.liveInterval);
  if (!summaryURL || !(interval > 0)) {
    return;
  }
  const baseTitle = document.title.replace(/^\(\d+\+?\) /, '');
  let timer = 0;
  let busy = false;
  let stopped = false;

  // showUnread puts the count of new gates in the navigation and the title.
  const showUnread = (text) => {
    const count = document.getElementById('unread');
    if (count) {
      count.textContent = text;
      count.hidden = text === '';
    }
    document.title = (text ? '(' + text + ') ' : '') + baseTitle;
  };

  // fresh fetches a page of this console, never following a redirect: a session that
  // ended is answered with one, to the sign-in page.
  const fresh = (url, headers) =>
    fetch(url, { credentials: 'same-origin', cache: 'no-store', redirect: 'manual', headers });

  // ended says the session is over: asking again is of no use until a reload.
  const ended = (resp) => resp.type === 'opaqueredirect' || resp.status === 401 || resp.status === 403;

  // swapList replaces the inbox's list with the one of the inbox as it is now.
  const swapList = async () => {
    const resp = await fresh(location.href, { 'X-Console-Live': '1' });
    if (!resp.ok) {
      return;
    }
    const doc = new DOMParser().parseFromString(await resp.text(), 'text/html');
    const next = doc.getElementById('inbox-list');
    const shown = document.getElementById('inbox-list');
    if (next && shown) {
      shown.replaceWith(document.adoptNode(next));
    }
  };

  const poll = async () => {
    timer = 0;
    if (busy || stopped) {
      return;
    }
    busy = true;
    try {
      const resp = await fresh(summaryURL, { Accept: 'application/json' });
      if (ended(resp)) {
        stopped = true; // signed out: a reload says so
        return;
      }
      if (!resp.ok) {
        return;
      }
      const s = await resp.json();
      showUnread(typeof s.unread_text === 'string' ? s.unread_text : '');
      const list = document.getElementById('inbox-list');
      if (list && s.version && list.dataset.version !== s.version) {
        await swapList();
      }
    } catch (err) {
      // The network or the server failed this once: try again at the next tick.
    } finally {
      busy = false;
      if (!stopped && !document.hidden && timer === 0) {
        timer = setTimeout(poll, interval);
      }
    }
  };

  // A hidden tab asks nothing; shown again, it asks at once.
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && timer === 0) {
      poll();
    }
  });
  document.documentElement.dataset.live = 'on'; // for styles and tests: it runs
  poll(); // at once: a page other than the inbox and the workflows comes without the count
})();
