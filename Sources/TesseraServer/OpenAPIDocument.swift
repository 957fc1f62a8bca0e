// Written by scripts/openapi.py: edit that script, not this file.

/// The OpenAPI 3.1 document of the admin and device API, served at `/openapi.json`.
enum OpenAPIDocument {
    static let json = #"""
{
 "openapi": "3.1.0",
 "info": {
  "title": "Tessera admin and device API",
  "version": "1",
  "description": "The admin API of a Tessera server (bearer: the bootstrap admin token or an admin API key, tsk_…) and the device API under each issuer (a Tessera-Device token, or the proofs a request carries). Times are seconds since 1970; docs/PROTOCOL.md describes each exchange."
 },
 "paths": {
  "/admin/tenants": {
   "post": {
    "summary": "Create a tenant",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Tenant"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateTenant"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "x-tessera-global": true,
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "get": {
    "summary": "List tenants (a tenant's key sees its own)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "tenants": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/Tenant"
           }
          }
         },
         "required": [
          "tenants"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "get": {
    "summary": "A tenant's settings",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Tenant"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "patch": {
    "summary": "Change the settings the body names",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Tenant"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/UpdateTenant"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "delete": {
    "summary": "Delete a tenant (409 while it has users unless force)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "deleted": {
           "type": "string"
          }
         },
         "required": [
          "deleted"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "parameters": [
     {
      "name": "force",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string",
       "enum": [
        "true",
        "false"
       ]
      }
     }
    ],
    "x-tessera-need": "manage",
    "x-tessera-global": true,
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/signing-keys": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "A new signing key (active unless activate is false)",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Rotation"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "properties": {
         "activate": {
          "type": "boolean"
         },
         "algorithm": {
          "type": "string",
          "enum": [
           "ES256",
           "RS256",
           "EdDSA"
          ]
         }
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "get": {
    "summary": "The tenant's published signing keys",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "keys": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/SigningKey"
           }
          }
         },
         "required": [
          "keys"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/signing-keys/{kid}/activate": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "kid",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "post": {
    "summary": "Make a published key the one that signs",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/KeyActivation"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/signing-keys/{kid}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "kid",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "delete": {
    "summary": "Retire an inactive key",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/KeyRetirement"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/services": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "Register a service",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Service"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateService"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "get": {
    "summary": "The tenant's services",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "services": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/Service"
           }
          }
         },
         "required": [
          "services"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/services/{client}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "client",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The service's client_id"
    }
   ],
   "get": {
    "summary": "A service",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Service"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "patch": {
    "summary": "Change what the body names (409 for the server's own console and account-page services)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Service"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/UpdateService"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "delete": {
    "summary": "Delete a service; its sessions end (409 for the server's own console and account-page services)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "deleted": {
           "type": "string"
          }
         },
         "required": [
          "deleted"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/services/{client}/secret": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "client",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "post": {
    "summary": "A new client secret, shown once",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Service"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/users": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "Create a user",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/User"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateUser"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "get": {
    "summary": "Users in username order, a page at a time",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/UserPage"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "parameters": [
     {
      "name": "username",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "search",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "attribute",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "name=value"
     },
     {
      "name": "cursor",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "The next_cursor of the previous page"
     },
     {
      "name": "limit",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 1000
      },
      "description": "At most this many (default 100)"
     }
    ],
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/users/{user}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "user",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The user's id"
    }
   ],
   "get": {
    "summary": "A user with their activations and live sessions",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/UserDetail"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "patch": {
    "summary": "Replace the user's attributes",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/User"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/UpdateUser"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "delete": {
    "summary": "Delete a user with their devices, sessions and history",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "deleted": {
           "type": "string"
          }
         },
         "required": [
          "deleted"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/users/{user}/disable": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "user",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "post": {
    "summary": "Disable a user: sessions end, no login",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/User"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/users/{user}/enable": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "user",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "post": {
    "summary": "Enable a user again",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/User"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/users/{user}/sessions": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "user",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "get": {
    "summary": "The user's live sessions",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "sessions": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/Session"
           }
          }
         },
         "required": [
          "sessions"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "delete": {
    "summary": "End every session of the user",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "ended": {
           "type": "integer"
          }
         },
         "required": [
          "ended"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "support",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/users/{user}/security-keys": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "user",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "get": {
    "summary": "The user's security keys and passkeys",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "security_keys": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/SecurityKey"
           }
          }
         },
         "required": [
          "security_keys"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/users/{user}/security-keys/{key}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "user",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    },
    {
     "name": "key",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The security key's id (not its credential id)"
    }
   ],
   "delete": {
    "summary": "Remove a security key or passkey; the sessions of its logins end",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "removed": {
           "type": "string"
          }
         },
         "required": [
          "removed"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "support",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/sessions/{session}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "session",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tokens' sid"
    }
   ],
   "delete": {
    "summary": "End one session",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "ended": {
           "type": "integer"
          }
         },
         "required": [
          "ended"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "support",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/registration-tokens": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "An initial access token for dynamic client registration (RFC 7591)",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/RegistrationToken"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateRegistrationToken"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "get": {
    "summary": "The tenant's initial access tokens",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "tokens": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/RegistrationToken"
           }
          }
         },
         "required": [
          "tokens"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/registration-tokens/{token}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "token",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "delete": {
    "summary": "Revoke an initial access token",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "revoked": {
           "type": "string"
          }
         },
         "required": [
          "revoked"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/identity-providers": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "Add an external OpenID provider users may sign in with (federation); its discovery document is read first",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/IdentityProvider"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "502": {
      "description": "An external provider failed or could not be reached",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateIdentityProvider"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "get": {
    "summary": "The tenant's external providers",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "providers": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/IdentityProvider"
           }
          }
         },
         "required": [
          "providers"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/identity-providers/{provider}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "provider",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The provider's name"
    }
   ],
   "delete": {
    "summary": "Remove a provider and the users' links to it",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "removed": {
           "type": "string"
          }
         },
         "required": [
          "removed"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/invitations": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "An activation link for a user",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Invitation"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateInvitation"
       }
      }
     }
    },
    "x-tessera-need": "support",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "get": {
    "summary": "Open invitations",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "invitations": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/OpenInvitation"
           }
          }
         },
         "required": [
          "invitations"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/invitations/{invitation}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "invitation",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "delete": {
    "summary": "End an open invitation",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "revoked": {
           "type": "string"
          }
         },
         "required": [
          "revoked"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "support",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/activations": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "get": {
    "summary": "Activations, with their lock state",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "activations": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/Activation"
           }
          }
         },
         "required": [
          "activations"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "parameters": [
     {
      "name": "username",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     }
    ],
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/tenants/{tenant}/history": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "get": {
    "summary": "Authentication history, newest first, paged",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/HistoryPage"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "parameters": [
     {
      "name": "username",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "activation",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "service",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "outcome",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string",
       "enum": [
        "approved",
        "failed",
        "locked",
        "denied",
        "completed"
       ]
      }
     },
     {
      "name": "since",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 0
      }
     },
     {
      "name": "until",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 0
      }
     },
     {
      "name": "cursor",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "The next_cursor of the previous page"
     },
     {
      "name": "limit",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 1000
      },
      "description": "At most this many (default 100)"
     }
    ],
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/activations/{activation}/unlock": {
   "parameters": [
    {
     "name": "activation",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "post": {
    "summary": "Clear an activation's failures and lock",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Activation"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "support",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/activations/{activation}/revoke": {
   "parameters": [
    {
     "name": "activation",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "post": {
    "summary": "Remove an activation; its sessions end",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Activation"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "support",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/audit": {
   "get": {
    "summary": "The audit log, newest first",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "entries": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/AuditEntry"
           }
          }
         },
         "required": [
          "entries"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "parameters": [
     {
      "name": "tenant",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "since",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 0
      }
     },
     {
      "name": "action",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string",
       "maxLength": 64
      },
      "description": "Only actions beginning so"
     },
     {
      "name": "actor",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string",
       "maxLength": 200
      },
      "description": "Only this actor"
     },
     {
      "name": "limit",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 1000
      },
      "description": "At most this many (default 100)"
     }
    ],
    "x-tessera-need": "read",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/stats": {
   "get": {
    "summary": "Rows per table and the last purge",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Stats"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "read",
    "x-tessera-global": true,
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/purge": {
   "post": {
    "summary": "Purge expired and spent data now",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/PurgeReport"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "x-tessera-global": true,
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/keys": {
   "post": {
    "summary": "An admin API key, shown once",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AdminKey"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CreateAdminKey"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   },
   "get": {
    "summary": "Live admin API keys",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "keys": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/AdminKey"
           }
          }
         },
         "required": [
          "keys"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/keys/{key}": {
   "parameters": [
    {
     "name": "key",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     }
    }
   ],
   "delete": {
    "summary": "Revoke an admin API key",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "revoked": {
           "type": "string"
          }
         },
         "required": [
          "revoked"
         ]
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/admin/console-users": {
   "post": {
    "summary": "Make a console operator (and the operators' tenant, and the user, if missing); an activation link for its device",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ConsoleUserInvitation"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AddConsoleUser"
       }
      }
     }
    },
    "x-tessera-need": "manage",
    "x-tessera-global": true,
    "security": [
     {
      "adminToken": []
     }
    ],
    "tags": [
     "admin"
    ]
   }
  },
  "/t/{tenant}/device/activation/start": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "What an activation code offers (user, PIN salt)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ActivationOffer"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ActivationStart"
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": []
   }
  },
  "/t/{tenant}/device/activation/complete": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "Register the device's keys (signed registration)",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ActivationReceipt"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ActivationComplete"
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": []
   }
  },
  "/t/{tenant}/device/authentications/{request}/finish": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "request",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The authentication request's id"
    }
   ],
   "post": {
    "summary": "Answer a claimed request with a signed proof",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/FinishAnswer"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/Finish"
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": []
   }
  },
  "/t/{tenant}/device/authentications/{request}/claim": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "request",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The authentication request's id"
    }
   ],
   "post": {
    "summary": "Claim a request: its challenge and what it asks",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Challenge"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ],
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/Claim"
       }
      }
     }
    }
   }
  },
  "/t/{tenant}/device/authentications/{request}/deny": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "request",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The authentication request's id"
    }
   ],
   "post": {
    "summary": "Decline a request",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Status"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/authentications/{request}": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "request",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The authentication request's id"
    }
   ],
   "get": {
    "summary": "A request's state as this device sees it",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/PendingState"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/pending": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "get": {
    "summary": "The requests waiting for this device (long poll with wait)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/PendingList"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "parameters": [
     {
      "name": "wait",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 0,
       "maximum": 60
      }
     }
    ],
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/push": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "Register a wake-up push target",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Status"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/PushRegistration"
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   },
   "delete": {
    "summary": "Remove the push target",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Status"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/in-app": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "Start an in-app login for a service",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Challenge"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/InAppStart"
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/in-app/{request}/code": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "request",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The authentication request's id"
    }
   ],
   "post": {
    "summary": "The authorization code of an approved in-app login",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/InAppCode"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/sso/code": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "A code for a further service on the activation's single sign-on session (native single sign-on)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/InAppCode"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SingleSignOnCode"
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/processes": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "post": {
    "summary": "Start an account process",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Challenge"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ProcessStart"
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/processes/{request}/complete": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    },
    {
     "name": "request",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The authentication request's id"
    }
   ],
   "post": {
    "summary": "Complete an approved account process",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ProcessCompletion"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ProcessComplete"
       }
      }
     }
    },
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  },
  "/t/{tenant}/device/history": {
   "parameters": [
    {
     "name": "tenant",
     "in": "path",
     "required": true,
     "schema": {
      "type": "string"
     },
     "description": "The tenant's name"
    }
   ],
   "get": {
    "summary": "This activation's history",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/DeviceHistory"
        }
       }
      }
     },
     "400": {
      "description": "Malformed or out-of-bounds input",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "401": {
      "description": "No or bad admin token or key",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "403": {
      "description": "Beyond the key's role or scope",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "404": {
      "description": "Unknown (or another tenant's)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "409": {
      "description": "Conflicts with the current state",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "413": {
      "description": "Body too large",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "423": {
      "description": "The activation is locked (lockout)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "429": {
      "description": "Too many requests from this address, or long polls of this device (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     },
     "503": {
      "description": "Too many attempts at once on this activation (Retry-After)",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Error"
        }
       }
      }
     }
    },
    "parameters": [
     {
      "name": "limit",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 1000
      },
      "description": "At most this many (default 100)"
     }
    ],
    "tags": [
     "device"
    ],
    "security": [
     {
      "deviceToken": []
     }
    ]
   }
  }
 },
 "components": {
  "schemas": {
   "Error": {
    "type": "object",
    "properties": {
     "error": {
      "type": "string"
     },
     "error_description": {
      "type": "string"
     }
    },
    "required": [
     "error"
    ]
   },
   "Lockout": {
    "type": "object",
    "properties": {
     "free_attempts": {
      "type": "integer",
      "minimum": 0,
      "maximum": 5
     },
     "waits": {
      "type": "array",
      "minItems": 1,
      "items": {
       "type": "integer",
       "minimum": 5,
       "maximum": 2592000
      },
      "description": "Seconds; never shorter than the one before, the last at least 60."
     },
     "permanent_after": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20
     }
    },
    "required": [
     "free_attempts",
     "waits",
     "permanent_after"
    ]
   },
   "AppLinks": {
    "type": "object",
    "properties": {
     "link_domain": {
      "type": "string",
      "description": "Host of the app's universal and app links, unique across tenants and not the issuer's host; its /.well-known files (chosen by Host) list this tenant's apps only; the login page's same-device link uses it. Without it, only an admin for every tenant may list Android apps (then on the issuer's host); a tenant's own key gets 403"
     },
     "custom_scheme": {
      "type": "string",
      "description": "The app's URL scheme, used when there is no link domain"
     },
     "apple_app_ids": {
      "type": "array",
      "items": {
       "type": "string",
       "description": "TEAMID.bundle.id"
      }
     },
     "android_apps": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "package_name": {
         "type": "string"
        },
        "sha256_cert_fingerprints": {
         "type": "array",
         "items": {
          "type": "string"
         }
        }
       },
       "required": [
        "package_name",
        "sha256_cert_fingerprints"
       ]
      }
     }
    }
   },
   "Tenant": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "issuer": {
      "type": "string"
     },
     "lockout": {
      "$ref": "#/components/schemas/Lockout"
     },
     "process_policy": {
      "type": "string"
     },
     "sso_lifetime": {
      "type": "integer"
     },
     "sso_policy": {
      "type": "string"
     },
     "session_lifetime": {
      "type": "integer"
     },
     "session_idle_lifetime": {
      "type": "integer"
     },
     "history_retention": {
      "type": "integer"
     },
     "audit_retention": {
      "type": "integer"
     },
     "access_token_lifetime": {
      "type": "integer"
     },
     "app_links": {
      "$ref": "#/components/schemas/AppLinks"
     },
     "webauthn_trust_anchors": {
      "type": "string",
      "description": "PEM certificates a security key's packed attestation must chain to; absent: any none or packed attestation"
     },
     "webauthn_rp_id": {
      "type": "string",
      "description": "The RP ID passkeys are bound to"
     },
     "dynamic_registration": {
      "type": "boolean",
      "description": "Services may register themselves (RFC 7591)"
     },
     "android_apps_host_wide": {
      "type": "boolean",
      "description": "Whether app_links' Android apps are listed in the issuer host's assetlinks.json (only an admin for every tenant lists them there, and only without a link_domain, whose own file lists them otherwise)"
     }
    },
    "required": [
     "id",
     "name",
     "issuer",
     "lockout",
     "process_policy",
     "sso_lifetime",
     "session_lifetime",
     "session_idle_lifetime",
     "history_retention",
     "access_token_lifetime",
     "webauthn_rp_id",
     "dynamic_registration",
     "android_apps_host_wide"
    ]
   },
   "CreateTenant": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string",
      "pattern": "^[a-z0-9][a-z0-9-]{0,62}$"
     },
     "lockout": {
      "$ref": "#/components/schemas/Lockout"
     },
     "process_policy": {
      "type": "string"
     },
     "sso_lifetime": {
      "type": "integer",
      "minimum": 0,
      "maximum": 86400
     },
     "sso_policy": {
      "type": "string"
     }
    },
    "required": [
     "name"
    ]
   },
   "UpdateTenant": {
    "type": "object",
    "properties": {
     "lockout": {
      "$ref": "#/components/schemas/Lockout"
     },
     "process_policy": {
      "type": "string"
     },
     "sso_lifetime": {
      "type": "integer",
      "minimum": 0,
      "maximum": 86400
     },
     "sso_policy": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "session_lifetime": {
      "type": "integer",
      "minimum": 300,
      "maximum": 31536000
     },
     "session_idle_lifetime": {
      "type": "integer",
      "minimum": 300,
      "maximum": 31536000
     },
     "history_retention": {
      "type": "integer",
      "minimum": 86400,
      "maximum": 315360000
     },
     "audit_retention": {
      "oneOf": [
       {
        "type": "integer",
        "minimum": 2592000
       },
       {
        "type": "null"
       }
      ]
     },
     "access_token_lifetime": {
      "type": "integer",
      "minimum": 60,
      "maximum": 3600
     },
     "app_links": {
      "oneOf": [
       {
        "$ref": "#/components/schemas/AppLinks"
       },
       {
        "type": "null"
       }
      ]
     },
     "webauthn_trust_anchors": {
      "oneOf": [
       {
        "type": "string",
        "maxLength": 65536,
        "description": "PEM certificates; null: any authenticator"
       },
       {
        "type": "null"
       }
      ]
     },
     "webauthn_rp_id": {
      "oneOf": [
       {
        "type": "string",
        "maxLength": 253,
        "description": "The public URL's host or a parent domain of it; null: the server's"
       },
       {
        "type": "null"
       }
      ]
     },
     "dynamic_registration": {
      "type": "boolean",
      "description": "Services may register themselves with an initial access token (RFC 7591)"
     }
    }
   },
   "RegistrationToken": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "token": {
      "type": "string",
      "description": "Only in the answer that made it"
     },
     "uses_left": {
      "type": "integer"
     },
     "expires_at": {
      "type": "number"
     },
     "created_at": {
      "type": "number"
     }
    },
    "required": [
     "id",
     "uses_left",
     "expires_at",
     "created_at"
    ]
   },
   "IdentityProvider": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string"
     },
     "display_name": {
      "type": "string"
     },
     "logo_uri": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "discovery_url": {
      "type": "string"
     },
     "issuer": {
      "oneOf": [
       {
        "type": "string",
        "description": "Read from the discovery document; in the answer that added it"
       },
       {
        "type": "null"
       }
      ]
     },
     "client_id": {
      "type": "string"
     },
     "confidential": {
      "type": "boolean",
      "description": "Whether Tessera holds a client secret for it (never shown)"
     },
     "scope": {
      "type": "string"
     },
     "link_claim": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "link_field": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "claim_mapping": {
      "type": "object",
      "additionalProperties": {
       "type": "string"
      }
     },
     "redirect_uri": {
      "type": "string",
      "description": "Register this with the provider"
     },
     "created_at": {
      "type": "number"
     }
    },
    "required": [
     "name",
     "display_name",
     "discovery_url",
     "client_id",
     "confidential",
     "scope",
     "claim_mapping",
     "redirect_uri",
     "created_at"
    ]
   },
   "CreateIdentityProvider": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string",
      "pattern": "^[a-z0-9][a-z0-9-]{0,62}$",
      "description": "In URLs and the directory (kk_app_id)"
     },
     "display_name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100
     },
     "logo_uri": {
      "type": "string",
      "description": "HTTPS"
     },
     "discovery_url": {
      "type": "string",
      "description": "The provider's /.well-known/openid-configuration (HTTPS, or HTTP on the loopback)"
     },
     "client_id": {
      "type": "string",
      "minLength": 1,
      "maxLength": 256
     },
     "client_secret": {
      "type": "string",
      "minLength": 1,
      "maxLength": 1024,
      "description": "Sealed under the master key; none for a public client (PKCE only)"
     },
     "scope": {
      "type": "string",
      "description": "Default: openid email profile"
     },
     "link_claim": {
      "type": "string",
      "description": "The ID-token claim that finds the user on a first login (email only when email_verified)"
     },
     "link_field": {
      "type": "string",
      "description": "username, or the name of the user attribute the claim is compared with"
     },
     "claim_mapping": {
      "type": "object",
      "additionalProperties": {
       "type": "string"
      },
      "description": "Claim → user attribute, copied at each login"
     }
    },
    "required": [
     "name",
     "display_name",
     "discovery_url",
     "client_id"
    ]
   },
   "CreateRegistrationToken": {
    "type": "object",
    "properties": {
     "uses": {
      "type": "integer",
      "minimum": 1,
      "maximum": 1000
     },
     "ttl_seconds": {
      "type": "integer",
      "minimum": 60,
      "maximum": 2592000
     }
    }
   },
   "SigningKey": {
    "type": "object",
    "properties": {
     "kid": {
      "type": "string"
     },
     "algorithm": {
      "type": "string",
      "enum": [
       "ES256",
       "RS256",
       "EdDSA"
      ]
     },
     "active": {
      "type": "boolean"
     },
     "created_at": {
      "type": "number"
     }
    },
    "required": [
     "kid",
     "algorithm",
     "active",
     "created_at"
    ]
   },
   "Rotation": {
    "type": "object",
    "properties": {
     "kid": {
      "type": "string"
     },
     "algorithm": {
      "type": "string",
      "enum": [
       "ES256",
       "RS256",
       "EdDSA"
      ]
     },
     "active": {
      "type": "boolean"
     },
     "keys": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/SigningKey"
      }
     }
    },
    "required": [
     "kid",
     "algorithm",
     "active",
     "keys"
    ]
   },
   "KeyActivation": {
    "type": "object",
    "properties": {
     "activated": {
      "type": "string"
     },
     "keys": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/SigningKey"
      }
     }
    },
    "required": [
     "activated",
     "keys"
    ]
   },
   "KeyRetirement": {
    "type": "object",
    "properties": {
     "retired": {
      "type": "string"
     },
     "keys": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/SigningKey"
      }
     }
    },
    "required": [
     "retired",
     "keys"
    ]
   },
   "Service": {
    "type": "object",
    "properties": {
     "client_id": {
      "type": "string"
     },
     "client_secret": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "public": {
      "type": "boolean"
     },
     "redirect_uris": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "policy": {
      "type": "string"
     },
     "attributes": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "backchannel_token_delivery_mode": {
      "type": "string",
      "enum": [
       "poll",
       "ping"
      ]
     },
     "backchannel_client_notification_endpoint": {
      "type": "string"
     },
     "session_lifetime": {
      "type": "integer"
     },
     "session_idle_lifetime": {
      "type": "integer"
     },
     "number_matching": {
      "type": "boolean"
     },
     "roles": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/Role"
      }
     },
     "subject_type": {
      "type": "string",
      "enum": [
       "public",
       "pairwise"
      ]
     },
     "app_identity_token": {
      "type": "boolean"
     },
     "id_token_signed_response_alg": {
      "type": "string",
      "enum": [
       "ES256",
       "RS256",
       "EdDSA"
      ]
     },
     "post_logout_redirect_uris": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "backchannel_logout_uri": {
      "type": "string"
     },
     "require_pushed_authorization_requests": {
      "type": "boolean"
     },
     "dpop_bound_access_tokens": {
      "type": "boolean"
     },
     "gematik_profile": {
      "type": "boolean"
     },
     "issuer": {
      "type": "string"
     }
    },
    "required": [
     "client_id",
     "name",
     "public",
     "redirect_uris",
     "policy",
     "attributes",
     "number_matching",
     "roles",
     "subject_type",
     "app_identity_token",
     "id_token_signed_response_alg",
     "post_logout_redirect_uris",
     "require_pushed_authorization_requests",
     "dpop_bound_access_tokens",
     "gematik_profile",
     "issuer"
    ]
   },
   "Role": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string",
      "pattern": "^[A-Za-z0-9_-]{1,64}$"
     },
     "policy": {
      "type": "string",
      "description": "Combinations of the service's policy, comma separated"
     }
    },
    "required": [
     "name",
     "policy"
    ]
   },
   "CreateService": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string"
     },
     "redirect_uris": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "public": {
      "type": "boolean"
     },
     "policy": {
      "type": "string"
     },
     "attributes": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "backchannel_token_delivery_mode": {
      "type": "string",
      "enum": [
       "poll",
       "ping"
      ]
     },
     "backchannel_client_notification_endpoint": {
      "type": "string"
     },
     "number_matching": {
      "type": "boolean",
      "description": "Browser logins show a number the user picks on the device (default true)"
     },
     "roles": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/Role"
      }
     },
     "subject_type": {
      "type": "string",
      "enum": [
       "public",
       "pairwise"
      ]
     },
     "app_identity_token": {
      "type": "boolean",
      "description": "A step-up answered on the phone also gives the app an identity token"
     },
     "id_token_signed_response_alg": {
      "type": "string",
      "enum": [
       "ES256",
       "RS256",
       "EdDSA"
      ]
     },
     "post_logout_redirect_uris": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "backchannel_logout_uri": {
      "type": "string",
      "description": "Where logout tokens are posted (https, or http on a loopback host)"
     },
     "require_pushed_authorization_requests": {
      "type": "boolean",
      "description": "Authorization requests must be pushed first (RFC 9126)"
     },
     "dpop_bound_access_tokens": {
      "type": "boolean",
      "description": "Token requests without a DPoP proof are refused (RFC 9449)"
     },
     "gematik_profile": {
      "type": "boolean",
      "description": "Token requests carry a key_verifier; tokens go back encrypted under its token_key"
     }
    },
    "required": [
     "name",
     "redirect_uris"
    ]
   },
   "UpdateService": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string"
     },
     "redirect_uris": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "policy": {
      "type": "string"
     },
     "attributes": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "backchannel_token_delivery_mode": {
      "oneOf": [
       {
        "type": "string",
        "enum": [
         "poll",
         "ping"
        ]
       },
       {
        "type": "null"
       }
      ]
     },
     "backchannel_client_notification_endpoint": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "session_lifetime": {
      "oneOf": [
       {
        "type": "integer",
        "minimum": 300,
        "maximum": 31536000
       },
       {
        "type": "null"
       }
      ]
     },
     "session_idle_lifetime": {
      "oneOf": [
       {
        "type": "integer",
        "minimum": 300,
        "maximum": 31536000
       },
       {
        "type": "null"
       }
      ]
     },
     "number_matching": {
      "type": "boolean"
     },
     "roles": {
      "oneOf": [
       {
        "type": "array",
        "items": {
         "$ref": "#/components/schemas/Role"
        }
       },
       {
        "type": "null"
       }
      ]
     },
     "subject_type": {
      "type": "string",
      "enum": [
       "public",
       "pairwise"
      ]
     },
     "app_identity_token": {
      "type": "boolean"
     },
     "id_token_signed_response_alg": {
      "type": "string",
      "enum": [
       "ES256",
       "RS256",
       "EdDSA"
      ]
     },
     "post_logout_redirect_uris": {
      "oneOf": [
       {
        "type": "array",
        "items": {
         "type": "string"
        }
       },
       {
        "type": "null"
       }
      ]
     },
     "backchannel_logout_uri": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "null"
       }
      ]
     },
     "require_pushed_authorization_requests": {
      "type": "boolean"
     },
     "dpop_bound_access_tokens": {
      "type": "boolean"
     },
     "gematik_profile": {
      "type": "boolean"
     }
    }
   },
   "User": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "username": {
      "type": "string"
     },
     "attributes": {
      "type": "object",
      "properties": {},
      "additionalProperties": {
       "type": "string"
      }
     },
     "disabled": {
      "type": "boolean"
     },
     "created_at": {
      "type": "number"
     }
    },
    "required": [
     "id",
     "username",
     "attributes",
     "disabled",
     "created_at"
    ]
   },
   "CreateUser": {
    "type": "object",
    "properties": {
     "username": {
      "type": "string"
     },
     "attributes": {
      "type": "object",
      "properties": {},
      "additionalProperties": {
       "type": "string"
      }
     }
    },
    "required": [
     "username"
    ]
   },
   "UpdateUser": {
    "type": "object",
    "properties": {
     "attributes": {
      "type": "object",
      "properties": {},
      "additionalProperties": {
       "type": "string"
      }
     }
    },
    "required": [
     "attributes"
    ]
   },
   "UserPage": {
    "type": "object",
    "properties": {
     "users": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/User"
      }
     },
     "next_cursor": {
      "type": "string"
     }
    },
    "required": [
     "users"
    ]
   },
   "Activation": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "username": {
      "type": "string"
     },
     "alias": {
      "type": "string"
     },
     "factors": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "status": {
      "type": "string"
     },
     "failed_attempts": {
      "type": "integer"
     },
     "locked_until": {
      "type": "number"
     },
     "permanently_locked": {
      "type": "boolean"
     },
     "created_at": {
      "type": "number"
     },
     "last_used_at": {
      "type": "number"
     },
     "merged_users": {
      "type": "array",
      "items": {
       "type": "string"
      }
     }
    },
    "required": [
     "id",
     "username",
     "factors",
     "status",
     "failed_attempts",
     "permanently_locked",
     "created_at",
     "merged_users"
    ]
   },
   "Session": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "client_id": {
      "type": "string"
     },
     "service": {
      "type": "string"
     },
     "factors": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "activation_id": {
      "type": "string"
     },
     "created_at": {
      "type": "number"
     },
     "last_refreshed_at": {
      "type": "number"
     },
     "expires_at": {
      "type": "number"
     }
    },
    "required": [
     "id",
     "factors",
     "created_at",
     "last_refreshed_at",
     "expires_at"
    ]
   },
   "UserDetail": {
    "type": "object",
    "properties": {
     "user": {
      "$ref": "#/components/schemas/User"
     },
     "activations": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/Activation"
      }
     },
     "sessions": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/Session"
      }
     },
     "security_keys": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/SecurityKey"
      }
     }
    },
    "required": [
     "user",
     "activations",
     "sessions",
     "security_keys"
    ]
   },
   "SecurityKey": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "user_id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "credential_id": {
      "type": "string",
      "description": "The authenticator's credential id, base64url"
     },
     "algorithm": {
      "type": "string",
      "enum": [
       "ES256",
       "EdDSA",
       "RS256"
      ]
     },
     "aaguid": {
      "type": "string"
     },
     "transports": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "backup_eligible": {
      "type": "boolean",
      "description": "A synced passkey"
     },
     "backed_up": {
      "type": "boolean"
     },
     "attestation": {
      "type": "string",
      "enum": [
       "none",
       "self",
       "certificate",
       "trusted"
      ]
     },
     "sign_count": {
      "type": "integer"
     },
     "suspicious": {
      "type": "boolean",
      "description": "Its counter went backwards once: refused from then on"
     },
     "created_at": {
      "type": "number"
     },
     "last_used_at": {
      "type": "number"
     }
    },
    "required": [
     "id",
     "user_id",
     "name",
     "credential_id",
     "algorithm",
     "aaguid",
     "transports",
     "backup_eligible",
     "backed_up",
     "attestation",
     "sign_count",
     "suspicious",
     "created_at"
    ]
   },
   "CreateInvitation": {
    "type": "object",
    "properties": {
     "username": {
      "type": "string"
     },
     "ttl_seconds": {
      "type": "integer",
      "minimum": 1,
      "maximum": 2592000
     }
    },
    "required": [
     "username"
    ]
   },
   "Invitation": {
    "type": "object",
    "properties": {
     "url": {
      "type": "string"
     },
     "username": {
      "type": "string"
     },
     "expires_at": {
      "type": "number"
     }
    },
    "required": [
     "url",
     "username",
     "expires_at"
    ]
   },
   "OpenInvitation": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "user_id": {
      "type": "string"
     },
     "username": {
      "type": "string"
     },
     "kind": {
      "type": "string",
      "enum": [
       "invitation",
       "activation_data"
      ]
     },
     "created_at": {
      "type": "number"
     },
     "expires_at": {
      "type": "number"
     }
    },
    "required": [
     "id",
     "user_id",
     "username",
     "kind",
     "created_at",
     "expires_at"
    ]
   },
   "HistoryEntry": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "user_id": {
      "type": "string"
     },
     "username": {
      "type": "string"
     },
     "activation_id": {
      "type": "string"
     },
     "request_id": {
      "type": "string"
     },
     "service": {
      "type": "string"
     },
     "purpose": {
      "type": "string"
     },
     "outcome": {
      "type": "string"
     },
     "factors": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "at": {
      "type": "number"
     }
    },
    "required": [
     "id",
     "activation_id",
     "request_id",
     "purpose",
     "outcome",
     "factors",
     "at"
    ]
   },
   "HistoryPage": {
    "type": "object",
    "properties": {
     "entries": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/HistoryEntry"
      }
     },
     "next_cursor": {
      "type": "string"
     }
    },
    "required": [
     "entries"
    ]
   },
   "AuditEntry": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "tenant": {
      "type": "string"
     },
     "actor": {
      "type": "string"
     },
     "action": {
      "type": "string"
     },
     "target": {
      "type": "string"
     },
     "details": {
      "type": "object",
      "properties": {},
      "additionalProperties": {
       "type": "string"
      }
     },
     "at": {
      "type": "number"
     }
    },
    "required": [
     "id",
     "actor",
     "action",
     "details",
     "at"
    ]
   },
   "PurgeReport": {
    "type": "object",
    "properties": {
     "at": {
      "type": "integer"
     },
     "deleted": {
      "type": "object",
      "properties": {},
      "additionalProperties": {
       "type": "integer"
      }
     }
    },
    "required": [
     "at",
     "deleted"
    ]
   },
   "Stats": {
    "type": "object",
    "properties": {
     "tables": {
      "type": "object",
      "properties": {},
      "additionalProperties": {
       "type": "integer"
      }
     },
     "last_purge": {
      "$ref": "#/components/schemas/PurgeReport"
     }
    },
    "required": [
     "tables"
    ]
   },
   "AdminKey": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "role": {
      "type": "string",
      "enum": [
       "admin",
       "helpdesk",
       "auditor"
      ]
     },
     "tenant": {
      "type": "string"
     },
     "created_at": {
      "type": "number"
     },
     "key": {
      "type": "string"
     }
    },
    "required": [
     "id",
     "name",
     "role",
     "created_at"
    ]
   },
   "CreateAdminKey": {
    "type": "object",
    "properties": {
     "name": {
      "type": "string"
     },
     "role": {
      "type": "string",
      "enum": [
       "admin",
       "helpdesk",
       "auditor"
      ]
     },
     "tenant": {
      "type": "string"
     }
    },
    "required": [
     "name",
     "role"
    ]
   },
   "AddConsoleUser": {
    "type": "object",
    "properties": {
     "username": {
      "type": "string"
     },
     "role": {
      "type": "string",
      "enum": [
       "admin",
       "helpdesk",
       "auditor"
      ]
     },
     "tenant": {
      "type": "string"
     }
    },
    "required": [
     "username"
    ]
   },
   "ConsoleUserInvitation": {
    "type": "object",
    "properties": {
     "username": {
      "type": "string"
     },
     "role": {
      "type": "string"
     },
     "tenant": {
      "type": "string"
     },
     "url": {
      "type": "string"
     },
     "expires_at": {
      "type": "number"
     }
    },
    "required": [
     "username",
     "role",
     "url",
     "expires_at"
    ]
   },
   "ActivationStart": {
    "type": "object",
    "properties": {
     "code": {
      "type": "string"
     }
    },
    "required": [
     "code"
    ]
   },
   "ActivationOffer": {
    "type": "object",
    "properties": {
     "issuer": {
      "type": "string"
     },
     "tenant": {
      "type": "string"
     },
     "username": {
      "type": "string"
     },
     "pin_salt": {
      "type": "string"
     },
     "expires_at": {
      "type": "number"
     },
     "mergeable": {
      "type": "boolean"
     }
    },
    "required": [
     "issuer",
     "tenant",
     "username",
     "pin_salt",
     "expires_at"
    ]
   },
   "ActivationComplete": {
    "type": "object",
    "properties": {
     "registration": {
      "type": "string"
     },
     "biometric_registration": {
      "type": "string"
     }
    },
    "required": [
     "registration"
    ]
   },
   "ActivationReceipt": {
    "type": "object",
    "properties": {
     "activation_id": {
      "type": "string"
     },
     "issuer": {
      "type": "string"
     },
     "tenant": {
      "type": "string"
     },
     "user_id": {
      "type": "string"
     },
     "username": {
      "type": "string"
     },
     "factors": {
      "type": "array",
      "items": {
       "type": "string"
      }
     }
    },
    "required": [
     "activation_id",
     "issuer",
     "tenant",
     "user_id",
     "username",
     "factors"
    ]
   },
   "Claim": {
    "type": "object",
    "properties": {
     "user_id": {
      "type": "string"
     }
    }
   },
   "Finish": {
    "type": "object",
    "properties": {
     "proof": {
      "type": "string"
     },
     "biometric_proof": {
      "type": "string"
     }
    },
    "required": [
     "proof"
    ]
   },
   "ProcessStart": {
    "type": "object",
    "properties": {
     "purpose": {
      "type": "string"
     },
     "target": {
      "type": "string"
     },
     "code": {
      "type": "string"
     },
     "factor": {
      "type": "string"
     }
    },
    "required": [
     "purpose"
    ]
   },
   "ProcessComplete": {
    "type": "object",
    "properties": {
     "pin_key": {
      "type": "string"
     },
     "totp_secret": {
      "type": "string"
     },
     "biometric_key": {
      "type": "object"
     },
     "biometric_registration": {
      "type": "string"
     },
     "alias": {
      "type": "string"
     },
     "retire": {
      "type": "boolean"
     },
     "security_key": {
      "type": "object",
      "description": "add_factor securitykey: the new credential, WebAuthn's RegistrationResponseJSON"
     },
     "security_key_name": {
      "type": "string"
     }
    }
   },
   "InAppStart": {
    "type": "object",
    "properties": {
     "client_id": {
      "type": "string"
     },
     "scope": {
      "type": "string"
     },
     "state": {
      "type": "string"
     },
     "nonce": {
      "type": "string"
     },
     "code_challenge": {
      "type": "string"
     },
     "code_challenge_method": {
      "type": "string"
     },
     "redirect_uri": {
      "type": "string"
     },
     "user_id": {
      "type": "string"
     }
    },
    "required": [
     "client_id",
     "redirect_uri",
     "code_challenge",
     "code_challenge_method",
     "scope"
    ]
   },
   "PushRegistration": {
    "type": "object",
    "properties": {
     "kind": {
      "type": "string",
      "enum": [
       "apns",
       "webhook"
      ]
     },
     "token": {
      "type": "string"
     }
    },
    "required": [
     "kind",
     "token"
    ]
   },
   "Factors": {
    "type": "array",
    "items": {
     "type": "string",
     "enum": [
      "device",
      "pin",
      "biometric",
      "otp",
      "securitykey",
      "federation"
     ]
    }
   },
   "ServiceInformation": {
    "type": "object",
    "properties": {
     "client_id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     }
    },
    "required": [
     "client_id",
     "name"
    ]
   },
   "ProcessDescription": {
    "type": "object",
    "properties": {
     "factor": {
      "type": "string"
     },
     "username": {
      "type": "string"
     },
     "target": {
      "type": "string"
     },
     "target_alias": {
      "type": "string"
     }
    }
   },
   "Challenge": {
    "type": "object",
    "properties": {
     "request_id": {
      "type": "string"
     },
     "purpose": {
      "type": "string"
     },
     "challenge": {
      "type": "string"
     },
     "audience": {
      "type": "string"
     },
     "expires_at": {
      "type": "number"
     },
     "service": {
      "$ref": "#/components/schemas/ServiceInformation"
     },
     "process": {
      "$ref": "#/components/schemas/ProcessDescription"
     },
     "requested_attributes": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "name": {
         "type": "string"
        },
        "value": {
         "type": "string"
        }
       },
       "required": [
        "name"
       ]
      }
     },
     "requested_authenticators": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/Factors"
      }
     },
     "binding_message": {
      "type": "string"
     },
     "origin": {
      "type": "object",
      "properties": {
       "address": {
        "type": "string"
       },
       "network": {
        "type": "string"
       },
       "user_agent": {
        "type": "string"
       },
       "started_at": {
        "type": "number"
       }
      },
      "required": [
       "address",
       "network",
       "started_at"
      ]
     },
     "number_choices": {
      "type": "array",
      "items": {
       "type": "string"
      },
      "description": "Number matching: the user picks the one the login page shows; it goes into the proof as match"
     },
     "security_key": {
      "type": "object",
      "properties": {
       "rp_id": {
        "type": "string"
       },
       "credential_id": {
        "type": "string"
       },
       "transports": {
        "type": "array",
        "items": {
         "type": "string"
        }
       },
       "user_verification": {
        "type": "string"
       }
      },
      "required": [
       "rp_id",
       "credential_id",
       "transports",
       "user_verification"
      ]
     }
    },
    "required": [
     "request_id",
     "purpose",
     "challenge",
     "audience",
     "expires_at",
     "requested_attributes",
     "requested_authenticators"
    ]
   },
   "FinishAnswer": {
    "type": "object",
    "properties": {
     "result": {
      "type": "string"
     },
     "login": {
      "type": "object",
      "properties": {
       "service": {
        "$ref": "#/components/schemas/ServiceInformation"
       },
       "username": {
        "type": "string"
       },
       "factors": {
        "$ref": "#/components/schemas/Factors"
       },
       "authenticated_at": {
        "type": "number"
       },
       "role": {
        "type": "string"
       },
       "subject": {
        "type": "string"
       },
       "attributes": {
        "type": "object",
        "properties": {},
        "additionalProperties": {
         "type": "string"
        }
       },
       "identity_token": {
        "type": "string"
       },
       "sso_token": {
        "type": "string"
       },
       "sso_expires_at": {
        "type": "number"
       }
      },
      "required": [
       "service",
       "username",
       "factors",
       "authenticated_at"
      ]
     },
     "lockout": {
      "type": "object",
      "properties": {
       "is_permanent": {
        "type": "boolean"
       },
       "locked_until": {
        "type": "number"
       }
      },
      "required": [
       "is_permanent"
      ]
     },
     "user_information": {
      "$ref": "#/components/schemas/Challenge"
     },
     "process": {
      "type": "object",
      "properties": {
       "request_id": {
        "type": "string"
       },
       "purpose": {
        "type": "string"
       },
       "expires_at": {
        "type": "number"
       },
       "pin_salt": {
        "type": "string"
       },
       "description": {
        "$ref": "#/components/schemas/ProcessDescription"
       },
       "security_key": {
        "type": "object",
        "description": "add_factor securitykey: WebAuthn's PublicKeyCredentialCreationOptionsJSON"
       }
      },
      "required": [
       "request_id",
       "purpose",
       "expires_at"
      ]
     },
     "merged": {
      "type": "object",
      "properties": {
       "idm_identifier": {
        "type": "string"
       },
       "username": {
        "type": "string"
       }
      },
      "required": [
       "idm_identifier",
       "username"
      ]
     }
    },
    "required": [
     "result"
    ]
   },
   "Status": {
    "type": "object",
    "properties": {
     "status": {
      "type": "string"
     },
     "kind": {
      "type": "string"
     }
    },
    "required": [
     "status"
    ]
   },
   "PendingList": {
    "type": "object",
    "properties": {
     "requests": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "request_id": {
         "type": "string"
        },
        "service": {
         "$ref": "#/components/schemas/ServiceInformation"
        },
        "binding_message": {
         "type": "string"
        },
        "username": {
         "type": "string"
        },
        "user_id": {
         "type": "string"
        },
        "expires_at": {
         "type": "number"
        },
        "status": {
         "type": "string",
         "enum": [
          "pending",
          "authenticated",
          "ongoing_on_another_device",
          "canceled",
          "failed",
          "timeout"
         ]
        }
       },
       "required": [
        "request_id",
        "service",
        "username",
        "user_id",
        "expires_at",
        "status"
       ]
      }
     },
     "version": {
      "type": "string"
     }
    },
    "required": [
     "requests",
     "version"
    ]
   },
   "PendingState": {
    "type": "object",
    "properties": {
     "request_id": {
      "type": "string"
     },
     "status": {
      "type": "string",
      "enum": [
       "pending",
       "authenticated",
       "ongoing_on_another_device",
       "canceled",
       "failed",
       "timeout"
      ]
     }
    },
    "required": [
     "request_id",
     "status"
    ]
   },
   "SingleSignOnCode": {
    "type": "object",
    "properties": {
     "sso_token": {
      "type": "string"
     },
     "login": {
      "$ref": "#/components/schemas/InAppStart"
     },
     "attributes": {
      "type": "array",
      "items": {
       "type": "string"
      }
     }
    },
    "required": [
     "sso_token",
     "login"
    ]
   },
   "InAppCode": {
    "type": "object",
    "properties": {
     "code": {
      "type": "string"
     },
     "state": {
      "type": "string"
     },
     "iss": {
      "type": "string"
     },
     "redirect_uri": {
      "type": "string"
     },
     "expires_at": {
      "type": "number"
     }
    },
    "required": [
     "code",
     "iss",
     "redirect_uri",
     "expires_at"
    ]
   },
   "ProcessCompletion": {
    "type": "object",
    "properties": {
     "purpose": {
      "type": "string"
     },
     "factors": {
      "$ref": "#/components/schemas/Factors"
     },
     "url": {
      "type": "string"
     },
     "expires_at": {
      "type": "number"
     },
     "devices": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "activation_id": {
         "type": "string"
        },
        "alias": {
         "type": "string"
        },
        "factors": {
         "$ref": "#/components/schemas/Factors"
        },
        "created_at": {
         "type": "number"
        },
        "last_used_at": {
         "type": "number"
        },
        "current": {
         "type": "boolean"
        }
       },
       "required": [
        "activation_id",
        "factors",
        "created_at",
        "current"
       ]
      }
     },
     "removed": {
      "type": "string"
     }
    },
    "required": [
     "purpose"
    ]
   },
   "DeviceHistory": {
    "type": "object",
    "properties": {
     "entries": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "request_id": {
         "type": "string"
        },
        "service": {
         "type": "string"
        },
        "purpose": {
         "type": "string"
        },
        "outcome": {
         "type": "string"
        },
        "factors": {
         "$ref": "#/components/schemas/Factors"
        },
        "username": {
         "type": "string"
        },
        "at": {
         "type": "number"
        }
       },
       "required": [
        "request_id",
        "purpose",
        "outcome",
        "factors",
        "at"
       ]
      }
     }
    },
    "required": [
     "entries"
    ]
   }
  },
  "securitySchemes": {
   "adminToken": {
    "type": "http",
    "scheme": "bearer"
   },
   "deviceToken": {
    "type": "apiKey",
    "in": "header",
    "name": "Authorization",
    "description": "Tessera-Device followed by a device-signed JWS (docs/PROTOCOL.md)"
   }
  }
 }
}
"""#
}
