"""Pages about people: claiming a web sign-in, revoking a personal token, and the account."""

from django.urls import path

from accounts import views

urlpatterns = [
    path("claim/<str:code>", views.claim_page, name="account-claim"),
    path("tokens/<str:token_id>/revoke", views.token_revoke, name="token-revoke"),
    path("account", views.account, name="account"),
    path("account/share-mail", views.account_share_mail, name="account-share-mail"),
    path("account/delete", views.account_delete, name="account-delete"),
]
