// Saved Jupyter widgets are drawn by the widget manager after the page loads. Give what it draws
// the names assistive technology needs: a label on each slider handle and alt text on figures
// inside widget outputs.
(function () {
  function label(root) {
    root.querySelectorAll(".widget-slider, .jupyter-widget-slider").forEach(function (slider) {
      var text = slider.querySelector(".widget-label");
      slider.querySelectorAll(".noUi-handle").forEach(function (handle) {
        if (!handle.getAttribute("aria-label")) {
          handle.setAttribute("aria-label", (text && text.textContent.trim()) || "slider");
        }
      });
    });
    root.querySelectorAll(".jupyter-widgets img, .jp-RenderedImage img").forEach(function (img) {
      if (!img.getAttribute("alt")) {
        img.setAttribute("alt", "Figure drawn by the interactive widget (as saved when the notebook ran)");
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    label(document);
    new MutationObserver(function () { label(document); })
      .observe(document.body, { childList: true, subtree: true });
  });
})();
