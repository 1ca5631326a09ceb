"""The interfaces a system is called by (the one list the CLI, the API, the form and the
served reference systems take): ``qa``, a GERBIL QA web service (POST ``query``, ``lang``;
answers QALD-JSON), and ``text2sparql``, a TEXT2SPARQL'25 service (GET ``question``,
``dataset``; answers a SPARQL query, run on the KB when evaluated). Kept apart so that the
command line reads it without importing the HTTP client."""

INTERFACES = ("qa", "text2sparql")
