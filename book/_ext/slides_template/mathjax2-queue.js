// The saved-widget manager (@jupyter-widgets/html-manager) typesets the text of widgets through
// MathJax 2's `MathJax.Hub.Queue`, while the site runs MathJax 3, which has no `Hub`: each widget
// label would throw. Give every MathJax object the page ever holds (the configuration first, then
// MathJax 3 itself once it has loaded) that one call, mapped onto MathJax 3's `typesetPromise`.
(function () {
  function withHub(mathjax) {
    if (mathjax && typeof mathjax === "object" && !mathjax.Hub) {
      mathjax.Hub = {
        Queue: function () {
          Array.prototype.forEach.call(arguments, function (job) {
            var typeset = window.MathJax && window.MathJax.typesetPromise;
            if (Array.isArray(job) && job[0] === "Typeset" && typeset) {
              typeset.call(window.MathJax, [job[2]]).catch(function () {});
            }
          });
        },
      };
    }
    return mathjax;
  }
  var current = withHub(window.MathJax);
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    enumerable: true,
    get: function () { return current; },
    set: function (value) { current = withHub(value); },
  });
})();
