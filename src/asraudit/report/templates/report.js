// The report's only script.  The error listener is registered first and
// data-ready is set last, so a page whose script throws never reports ready.
// A fragment such as #model=1&verdict=ref,audio&wrong=1&order=disagree
// preselects the edit browser's filters (model by its index in the selector),
// which makes a filtered view linkable.
window.addEventListener('error', function (e) {
  var b = document.body, m = (e && e.message) || 'error';
  b.dataset.errors = b.dataset.errors ? b.dataset.errors + ' | ' + m : m;
});
(function () {
  var all = function (q) { return Array.prototype.slice.call(document.querySelectorAll(q)); };
  var sel = document.getElementById('filter-model');
  var edits = all('#edits .edit');

  // ------------------------------------------------------------ filters and order
  if (sel) {
    var boxes = all('#edit-filters input');
    var wrong = document.getElementById('filter-wrong');
    var order = document.getElementById('edit-order');
    var list = document.getElementById('edits');
    var apply = function () {
      var want = {}, counts = {}, shown = 0;
      boxes.forEach(function (cb) { want[cb.value] = cb.checked; });
      edits.forEach(function (div) {
        var v = div.getAttribute('data-v-' + sel.value) || 'none';
        counts[v] = (counts[v] || 0) + 1;
        div.hidden = want[v] !== true || (wrong.checked && Number(div.getAttribute('data-disagree')) === 0);
        if (!div.hidden) shown++;
      });
      document.querySelectorAll('#edit-filters .vc').forEach(function (s) {
        s.textContent = counts[s.getAttribute('data-verdict')] || 0;
      });
      document.getElementById('edit-count').textContent = shown;
      // data-rank is computed by the report (most models disagreeing first, ties in mined order)
      var key = order.value === 'disagree' ? 'data-rank' : 'data-index';
      edits.slice().sort(function (a, b) { return Number(a.getAttribute(key)) - Number(b.getAttribute(key)); })
        .forEach(function (div) { list.appendChild(div); });
    };
    var h = new URLSearchParams(location.hash.slice(1));
    if (h.has('model')) sel.value = h.get('model');
    if (h.has('verdict')) {
      var keep = h.get('verdict').split(',');
      boxes.forEach(function (cb) { cb.checked = keep.indexOf(cb.value) >= 0; });
    }
    if (h.get('wrong') === '1') wrong.checked = true;
    if (h.get('order') === 'disagree') order.value = 'disagree';
    boxes.concat([sel, wrong, order]).forEach(function (el) { el.addEventListener('change', apply); });
    apply();
  }

  // ------------------------------------------------------------ audio: a span with its context, or the clip
  var playing = null;
  var track = function (audio) {
    var wave = audio._wave, line = wave && wave.querySelector('.playhead');
    if (line && audio.duration > 0) {
      var x = (240 * audio.currentTime / audio.duration).toFixed(2);
      line.setAttribute('x1', x); line.setAttribute('x2', x);
    }
    if (audio._stopAt != null && audio.currentTime >= audio._stopAt) { audio.pause(); audio._stopAt = null; }
    if (!audio.paused) requestAnimationFrame(function () { track(audio); });
  };
  var play = function (holder, span) {
    var audio = document.getElementById(holder.getAttribute('data-audio'));
    if (!audio) return null;
    if (playing && playing !== audio) playing.pause();
    playing = audio;
    var start = Number(holder.getAttribute('data-start')), end = Number(holder.getAttribute('data-end'));
    var context = Number(holder.getAttribute('data-context')) || 0;
    audio._wave = holder.parentNode.querySelector('svg.wave');
    audio.currentTime = span ? Math.max(0, start - context) : 0;
    audio._stopAt = span ? end + context : null;
    var started = audio.play();
    if (started && started.then) started.then(function () { track(audio); }, function () {});
    return started;
  };
  all('#edits .play').forEach(function (holder) {
    holder.addEventListener('click', function (ev) {
      var btn = ev.target.closest('button');
      if (btn) play(holder, btn.classList.contains('play-span'));
    });
  });
  all('#clip-audio audio').forEach(function (audio) {
    audio.addEventListener('timeupdate', function () { track(audio); });
  });

  // ------------------------------------------------------------ review marks, kept per report in localStorage
  var dataEl = document.getElementById('report-data');
  var reviews = all('#edits .review');
  if (dataEl && reviews.length) {
    var data = JSON.parse(dataEl.textContent);
    var storeKey = 'asraudit-review:' + data.report;
    var marks = {};
    try { marks = JSON.parse(localStorage.getItem(storeKey) || '{}') || {}; } catch (e) { marks = {}; }
    var save = function () {
      try { localStorage.setItem(storeKey, JSON.stringify(marks)); } catch (e) { /* storage off: marks last this visit */ }
      document.getElementById('review-count').textContent = Object.keys(marks).length;
    };
    var read = function (block) {
      var checked = block.querySelector('input[type=radio]:checked');
      var note = block.querySelector('.review-note').value;
      var id = block.getAttribute('data-edit');
      if (checked || note) marks[id] = {judgement: checked ? checked.value : '', note: note};
      else delete marks[id];
      save();
    };
    reviews.forEach(function (block) {
      var mark = marks[block.getAttribute('data-edit')];
      if (mark) {
        block.querySelectorAll('input[type=radio]').forEach(function (r) { r.checked = r.value === mark.judgement; });
        block.querySelector('.review-note').value = mark.note || '';
      }
      block.addEventListener('change', function () { read(block); });
      block.addEventListener('input', function () { read(block); });
    });
    save();
    // A text a spreadsheet would run as a formula or read as a number goes behind an apostrophe, as
    // `refdis --review-sheet` writes it (the pattern is probes.review's, from the page's data).
    var sheetText = new RegExp('^(?:' + data.sheet_text + ')$');
    var cell = function (v) {
      v = v == null ? '' : String(v);
      if (sheetText.test(v)) v = "'" + v;
      return /[",\r\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v;
    };
    var sheet = function () {
      var cols = data.review_columns, j = cols.indexOf('judgement'), n = cols.indexOf('note');
      var lines = [cols.map(cell).join(',')];
      data.review_rows.forEach(function (row) {
        var out = row.slice(), mark = marks[row[0]];
        if (mark) { out[j] = mark.judgement; out[n] = mark.note; }
        lines.push(out.map(cell).join(','));
      });
      return lines.join('\r\n') + '\r\n';
    };
    document.getElementById('review-export').addEventListener('click', function () {
      var csv = sheet(), area = document.getElementById('review-csv'), link = document.getElementById('review-download');
      area.value = csv; area.textContent = csv; area.hidden = false;
      link.href = 'data:text/csv;charset=utf-8,' + encodeURIComponent(csv);
      link.download = 'review-' + data.report + '.csv';
      link.hidden = false;
      link.click();
    });
    document.getElementById('review-clear').addEventListener('click', function () {
      if (!window.confirm('Clear every review mark of this report?')) return;
      marks = {};
      reviews.forEach(function (block) {
        block.querySelectorAll('input[type=radio]').forEach(function (r) { r.checked = false; });
        block.querySelector('.review-note').value = '';
      });
      save();
    });
  }
  document.body.dataset.ready = '1';
})();
