package scan

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
)

// forbiddenAt scans a request and returns the forbidden patterns that hit, by path.
func forbiddenAt(t *testing.T, req map[string]any) map[string][]string {
	t.Helper()
	forbidden, _ := scanner(t).Scan(req)
	out := map[string][]string{}
	for _, h := range forbidden {
		out[h.Path] = append(out[h.Path], h.Pattern)
	}
	return out
}

func TestScanFindsCredentialsAsPeopleWriteThem(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	for _, text := range []string{
		// in a sentence, in the seeds' three languages
		"the DB password is Lumen-2027-Forte",
		"I've set your temporary password to Kx82!mPqz so you can sign in",
		"use Tr0ub4dor&3 as the admin password",
		"a senha do banco é Lumen-2027-Forte",
		"senha provisória: Xyz-2027",
		"o token de acesso da API é 8c1e4f7a2b9d e está no wiki",
		"数据库密码是 Lumen2027",
		"我在后台重置后电话告诉她新密码 Huanying#5521。",
		"Escalation desk voicemail PIN: 482190",
		"o PIN do cofre de chaves é 40718832",
		// encoded
		"Authorization: Basic " + b64([]byte("support_bot:Ledger!Kite77")),
		"hidden field " + b64([]byte("password=Lumen-2027-Forte")),
		"debug " + b64([]byte("senha: Jabuticaba!88")),
		"/api/login?usuario=fiscal02&senha=Receita%2B2026%21",
		"REDIS_URL=redis://:S4lt-and-Pepper@cache.internal:6379/0",
		// labelled in a config inside a text
		"[smtp]\nhost = mail.example\nuser = campaigns\npass = t9VxQ2wLr8",
		"Server=sql-02;Database=Orders;User Id=svc;Password=Blue7Harbor!;Encrypt=true",
		// a strong password on its own, and a login
		"Root on the jump host still uses P@ssw0rd123.",
		"producao@estudio.example / trilha-sonora-88",
	} {
		hits := forbiddenAt(t, map[string]any{"notes": text})
		assert.NotEmpty(t, hits["notes"], "%q", text)
	}
}

func TestScanFindsCredentialKeys(t *testing.T) {
	for _, req := range []map[string]any{
		{"password": "Lumen"},
		{"senha": "mudar123"},
		{"secret": "qingniao"},
		{"api_key": "Brasa"},
		{"db_password": "guoyuan-44"},
		{"clientSecret": "c7Pq-9LzT_vR2mWx"},
		{"SMTP_SENHA": "qX7vR2mL9p"},
		{"senha_do_link": "ipê-roxo"},
		{"密码": "白鹭"},
		{"Senha": "Sol Nascente 7"},
		{"credentials": map[string]any{"user": "ana", "password": "x9-lumen"}},
	} {
		assert.NotEmpty(t, forbiddenAt(t, req), "%v", req)
	}
}

func TestScanFindsSplitCredentials(t *testing.T) {
	for _, req := range []map[string]any{
		{"label": "password", "value": "Tr0ub4dor&3"},
		{"item": "API key for the SEO tool", "value": "b5d7e1f0a9c34e28a1"},
		{"nome": "SENHA_BANCO", "valor": "cofre-Quartzo-88x"},
		{"question": "What's the admin PIN for the returns kiosk?", "answer": "It's 602914."},
		{"lines": []any{"the DB password is", "Lumen-2027-Forte"}},
		{"mensagem": "é o código do cadeado do armário de retirada, que a loja pediu pra eu repassar hoje", "anexo": "4-1-9-7"},
	} {
		hits := forbiddenAt(t, req)
		assert.Len(t, hits, 2, "both halves of %v: %v", req, hits)
	}
}

func TestScanCredentialTwins(t *testing.T) {
	for _, req := range []map[string]any{
		{"draft": "We will never ask for your password."},
		{"draft": "Nunca pediremos a sua senha."},
		{"draft": "我们绝不会索要您的密码。"},
		{"draft": "Your password: we will never ask for it"},
		{"draft": "A senha é pessoal e intransferível."},
		{"draft": "密码长度至少8位，需包含数字。"},
		{"draft": "Password requirements: minimum 12 characters, at least one digit."},
		{"draft": "We reset the password for cust-7f3a9c this morning."},
		{"draft": "Primary key: customer_identifier_2026"},
		{"draft": "Stripe publishable key for the promo page: pk_live_51Qx"},
		{"draft": "the secret to great cold brew is patience"},
		{"draft": "The password reset for ORD-1001 was sent on 2026-03-10T09:10:00Z."},
		{"notes": "request_id=req_3Lq8Zx1Wn7Tc5Vb2 commit=1f0c9a8e7d6b5c4a3f2e1d0c9b8a7f6e5d4c3b2a"},
		{"notes": "https://shop.example.com/search?q=kit&variant=checkout%2Fpromo"},
		{"notes": "O utm_content é Y2FtcGFuaGE9dmVyYW8tMjAyNiZ2YXJpYW50ZT1h (base64 da campanha)"},
		{"password_policy": "at least 12 characters"},
		{"politica_senha": "mínimo de 12 caracteres"},
		{"senha_exigida": "não, a landing page é pública"},
		{"password_reset_url": "https://shop.example.com/account/reset"},
		{"密码策略": "至少12位"},
		{"method": "session_token", "customer_ref": "cust-7f3a9c", "expires_at": "2099-12-31T23:59:59Z"},
		{"label": "password policy", "value": "12+ characters, rotated yearly"},
		{"nota": "a senha da VPN é", "detalhe": "gerida pela TI e nunca escrita em chamados"},
		{"comment": "review link password ->", "deadline": "2026-05-15"},
		{"password": "********"},
		{"senha": "[REDACTED]"},
	} {
		assert.Empty(t, forbiddenAt(t, req), "%v", req)
	}
}

func TestWordShapes(t *testing.T) {
	for w, want := range map[string]shape{
		"Lumen-2027-Forte": mixed, "P@ssw0rd123": strong, "hunter2": loose, "mudar123": loose,
		"Lumen2027": mixed, "Mingyue_Q3": mixed, "correct-horse-battery-staple": loose,
		"incorrect": plain, "case-sensitive": plain, "ORD-1001": plain, "QB123456789BR": plain,
		"2026-03-10T09:10:00Z": plain, "1920x1080": plain, "24fps": plain, "v2.3.1": plain,
		"a@b.example": plain, "img_Q7wX2pLm9Kz4Tn8v.jpg": plain, "01a23229-d25a-7060-b76a-3f7ce5f70b82": plain,
		"8位": plain, "R$39,90": plain, "#BrightBrew2026": plain, "re_3PqL9x2": mixed,
	} {
		assert.Equal(t, want, wordShape(w), "%s", w)
	}
}
