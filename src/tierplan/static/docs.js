// Starts the vendored Swagger UI on /docs (no inline script, no CDN).
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: document.body.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    deepLinking: true,
    layout: "BaseLayout",
    presets: [SwaggerUIBundle.presets.apis],
  });
});
