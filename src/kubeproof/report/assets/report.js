// The task × agent matrix's filters: show the rows of one area and/or difficulty.
(function () {
  var table = document.getElementById("matrix");
  if (!table) return;
  var area = document.getElementById("filter-area");
  var difficulty = document.getElementById("filter-difficulty");
  var count = document.getElementById("filter-count");
  function apply() {
    var shown = 0;
    var rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var keep = (!area.value || row.dataset.area === area.value) &&
        (!difficulty.value || row.dataset.difficulty === difficulty.value);
      row.classList.toggle("hidden", !keep);
      if (keep) shown++;
    }
    count.textContent = shown + " of " + rows.length + " task(s)";
  }
  area.addEventListener("change", apply);
  difficulty.addEventListener("change", apply);
  apply();
})();
