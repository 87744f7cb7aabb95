// The leaderboard page's views: what it shows of the chosen period (the board by points, the
// board by matchpoints, the day's deals…), one at a time, chosen by the tabs above the periods'
// and kept in the URL (?view=). A view is
//   {id, label: () => text, periods: ["day", "week", …], draw: async (box, ctx) => …}
// and may be added at any time, by this page or by another module, with addView(): the tabs are
// drawn again. `draw` fills `box` (its own, emptied before each draw) and reads and moves the page
// through `ctx`: {kind, day, today, offset, title, current(), go(patch), param(name),
// setParam(name, value)} (leaderboard.js).
const views = [];
let redraw = () => {};

export function addView(view) {
  const at = views.findIndex((v) => v.id === view.id);
  if (at >= 0) views[at] = view;
  else views.push(view);
  redraw();
}

export function findView(id) {
  return views.find((v) => v.id === id) || views[0];
}

export function allViews() {
  return views;
}

// The page's own hook: called whenever the list of views changes.
export function onViewsChanged(fn) {
  redraw = fn;
}
