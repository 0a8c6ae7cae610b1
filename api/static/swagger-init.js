// Starts Swagger UI on this server's own OpenAPI document (api/docs.py). Everything it loads is
// same-origin: the spec URL comes from the page, the online validator badge is off.
"use strict";
(function () {
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.specUrl,
    dom_id: "#swagger-ui",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
})();
